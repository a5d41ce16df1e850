// Stand-ins for Docs/Performance.md: the least TinyObservation's update, set and derived set must
// do, written by hand with the same guarantees and nothing else, with public APIs only:
//
// - one lock per atom, the platform's own (`Mutex`), and nothing of the user's under it: a
//   replaced value is released after unlocking;
// - an update sees optimistic layers, moves the version, and checks for watchers and readers;
// - a change reaches the watchers registered when it took effect, serially, in order, on a thread
//   that changes the atom; a deliverer's turn is taken under the lock and ended after;
// - deliveries on one thread never nest: a delivery started inside another waits in a queue of
//   the thread's own;
// - a stopped watcher receives nothing more: each delivery reads its stop flag;
// - a derived value is recomputed outside every lock, in the order of tickets taken before the
//   sources are read, and an equal value (compared outside every lock) delivers nothing.

import Glibc
import Synchronization

/// One watch: a closure that checks its stop flag, then calls the handler.
typealias MinimalWatch = @Sendable (MinimalChange) -> Void

struct MinimalChange {
  let old: Int
  let new: Int
  let error: (any Error)?
}

/// A watch's stop flag.
final class MinimalFlag: Sendable {
  let raised = Atomic(false)
}

/// Makes a watch of `handler`.
func minimalWatch(_ handler: @escaping @Sendable (MinimalChange) -> Void) -> MinimalWatch {
  let flag = MinimalFlag()
  return { change in
    guard !flag.raised.load(ordering: .acquiring) else { return }
    handler(change)
  }
}

/// The least an atom's update must do: the lock, a check for optimistic layers, the version, the
/// check for watchers and readers, and the replaced value handed out of the lock.
final class MinimalAtom: Sendable {
  struct State {
    var value: Int? = 0
    var version: UInt64 = 0
    var watches: [MinimalWatch] = []
    var isRead = false
    var layers: [Int] = []
  }
  let mutex = Mutex(State())

  @inline(never) func deliver() { fatalError("no watcher here") }

  func update(_ body: (inout Int) -> Void) -> Int {
    var replaced: Int?
    let (new, isWatched) = mutex.withLock { state in
      guard state.layers.isEmpty, var new = state.value else { fatalError("no layers here") }
      body(&new)
      replaced = state.value.take()
      state.value = new
      state.version &+= 1
      return (new, !state.watches.isEmpty || state.isRead)
    }
    if isWatched { deliver() }
    _ = replaced  // released here, after unlocking
    return new
  }
}

/// The per-thread queue that keeps deliveries from nesting: whether the thread is delivering, and
/// what waits for it.
final class MinimalThreadQueue {
  var isDelivering = false
  var pending: [MinimalWork] = []
  var running: [MinimalWork] = []
}
struct MinimalWork {
  let run: () -> Void
}
let minimalQueueKey: pthread_key_t = {
  var key = pthread_key_t()
  precondition(pthread_key_create(&key, nil) == 0)
  return key
}()
/// This thread's queue (never freed: the stand-ins run on one thread).
func minimalQueue() -> MinimalThreadQueue {
  if let queue = pthread_getspecific(minimalQueueKey) {
    return Unmanaged<MinimalThreadQueue>.fromOpaque(queue).takeUnretainedValue()
  }
  let queue = MinimalThreadQueue()
  pthread_setspecific(minimalQueueKey, Unmanaged.passRetained(queue).toOpaque())
  return queue
}

/// The least a set to watchers must do: the update above, plus the change and a snapshot of the
/// watches handed out of the lock, the turn that keeps deliveries serial (taken and ended under
/// the lock), the per-thread queue that keeps deliveries from nesting, and each watch's stop
/// flag.
final class MinimalWatchedAtom: Sendable {
  struct Batch {
    let change: MinimalChange
    let watches: [MinimalWatch]
  }
  struct State {
    var value: Int? = 0
    var version: UInt64 = 0
    var watches: [MinimalWatch] = []
    var isRead = false
    var layers: [Int] = []
    var isDelivering = false
    var waiting: [Batch] = []
    /// For a derived value: its recomputations' tickets, under its lock.
    var ticketTaken: UInt64 = 0
    var ticketShown: UInt64 = 0
  }
  let mutex = Mutex(State())

  func watch(_ handler: @escaping @Sendable (MinimalChange) -> Void) {
    let watch = minimalWatch(handler)
    mutex.withLock { $0.watches.append(watch) }
  }

  func set(_ newValue: Int) {
    _ = set(newValue, error: nil) { _ in true }
  }

  /// Sets the value when `shows` says so, under the lock; returns whether it did.
  func set(_ newValue: Int, error: (any Error)?, when shows: (inout State) -> Bool) -> Bool {
    var replaced: Int?
    var batch: Batch?
    let shown = mutex.withLock { state -> Bool in
      guard shows(&state) else { return false }
      guard state.layers.isEmpty, let old = state.value else { fatalError("no layers here") }
      state.value = newValue
      state.version &+= 1
      guard !state.watches.isEmpty || state.isRead else {
        replaced = old
        return true
      }
      let made = Batch(change: MinimalChange(old: old, new: newValue, error: error),
        watches: state.watches)
      if state.isDelivering {
        state.waiting.append(made)
      } else {
        state.isDelivering = true
        batch = made
      }
      return true
    }
    _ = replaced  // released here, after unlocking
    if let batch = consume batch { deliver(batch) }
    return shown
  }

  func deliver(_ batch: Batch) {
    let queue = minimalQueue()
    guard !queue.isDelivering else {
      queue.pending.append(MinimalWork { self.send(batch); self.deliverWaiting() })
      return
    }
    queue.isDelivering = true
    send(batch)
    deliverWaiting()
    while !queue.pending.isEmpty {
      swap(&queue.pending, &queue.running)
      for work in queue.running { work.run() }
      queue.running.removeAll(keepingCapacity: true)
    }
    queue.isDelivering = false
  }

  func send(_ batch: Batch) {
    for index in batch.watches.indices { batch.watches[index](batch.change) }
  }

  func deliverWaiting() {
    while true {
      let next = mutex.withLock { state -> [Batch] in
        if state.waiting.isEmpty { state.isDelivering = false }
        defer { state.waiting = [] }
        return state.waiting
      }
      if next.isEmpty { return }
      for batch in next { send(batch) }
    }
  }

  /// The value, read as a derived value's recomputation reads its source: without Observation.
  func read() -> Int {
    mutex.withLock { $0.value! }
  }
}

/// The least a set through a derived value to one watcher must do: a set of the source above, to
/// one watch that recomputes; the recomputation takes its ticket (and the value shown, to
/// compare) under the derived value's lock, reads the source under its lock, compares outside
/// every lock, and shows the result under the derived value's lock, whose change waits for the
/// source's delivery to return before it reaches the derived value's watcher.
final class MinimalDerived: Sendable {
  let source = MinimalWatchedAtom()
  let derived = MinimalWatchedAtom()

  init(_ handler: @escaping @Sendable (MinimalChange) -> Void) {
    derived.watch(handler)
    source.watch { [derived, source] change in
      Self.recompute(derived, from: source, error: change.error)
    }
  }

  static func recompute(
    _ derived: MinimalWatchedAtom, from source: MinimalWatchedAtom, error: (any Error)?
  ) {
    let (ticket, shown, current) = derived.mutex.withLock { state in
      state.ticketTaken += 1
      return (state.ticketTaken, state.ticketShown, state.value!)
    }
    let new = source.read() &* 2
    guard shown < ticket, new != current else { return }
    _ = derived.set(new, error: error) { state in
      guard state.ticketShown == shown else { return false }
      state.ticketShown = ticket
      return true
    }
  }
}
