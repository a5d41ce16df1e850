// The two orders a set's delivery keeps from rung 3 of the set ladder up (SetLadder.swift):
// whose turn it is to deliver a stage's changes (serial delivery), and what each thread keeps
// so that its deliveries never nest.

import Glibc
import Synchronization

/// Whose turn it is to deliver a stage's changes: a flag under the stage's lock
/// (`isDelivering`), or an atomic beside the lock. A stage keeps its rule outside the lock.
protocol TurnRule: ~Copyable, Sendable {
  init()
  /// Under the lock: takes the turn, or says that the change must wait (`false`).
  func take(_ isDelivering: inout Bool) -> Bool
  /// Outside the lock, after a round of delivery: ends the turn if that needs no lock.
  func endsWithoutLock() -> Bool
  /// Under the lock, after a round: nothing waits, so the turn ends.
  func end(_ isDelivering: inout Bool)
  /// Under the lock, after a round: changes wait, and the deliverer takes them.
  func keep()
}

/// The turn as the flag under the lock, ended under the lock after each round.
struct LockedTurn: TurnRule {
  func take(_ isDelivering: inout Bool) -> Bool {
    guard !isDelivering else { return false }
    isDelivering = true
    return true
  }
  func endsWithoutLock() -> Bool { false }
  func end(_ isDelivering: inout Bool) { isDelivering = false }
  func keep() {}
}

/// The turn as an atomic beside the lock (the flag under the lock stays down): taken under the
/// lock, ended outside it with one compare-and-swap when nothing waits. Only a holder of the
/// lock leaves `idle`, and a change that finds a deliverer marks that something waits
/// (`waiting`), so the compare-and-swap fails exactly when the deliverer must take the lock to
/// take what waits.
struct AtomicTurn: ~Copyable, TurnRule {
  static var idle: UInt8 { 0 }
  static var delivering: UInt8 { 1 }
  static var waiting: UInt8 { 2 }
  let word = Atomic(AtomicTurn.idle)

  func take(_ isDelivering: inout Bool) -> Bool {
    let seen = word.load(ordering: .acquiring)
    if seen == Self.waiting
      || (seen == Self.delivering
        && word.compareExchange(
          expected: Self.delivering, desired: Self.waiting, ordering: .acquiringAndReleasing
        ).exchanged)
    {
      return false
    }
    word.store(Self.delivering, ordering: .releasing)  // idle, or ended since the load
    return true
  }
  func endsWithoutLock() -> Bool {
    word.compareExchange(
      expected: Self.delivering, desired: Self.idle, ordering: .acquiringAndReleasing
    ).exchanged
  }
  func end(_ isDelivering: inout Bool) { word.store(Self.idle, ordering: .releasing) }
  func keep() { word.store(Self.delivering, ordering: .releasing) }
}

/// What each thread keeps so that its deliveries never nest: whether it is delivering, and the
/// deliveries started meanwhile, first in, first out (as `Trampoline` and `ThreadState` in
/// Sources/Internals keep it).
struct ThreadDeliveries {
  var isDelivering = false
  var pending: [Work] = []
  /// The deliveries running now, swapped in from `pending`; emptied but kept, so that a
  /// delivery queued once per set allocates no queue each time.
  var running: [Work] = []

  struct Work {
    let run: () -> Void
  }

  /// Runs what waits on `thread`, and what that queues, first in, first out. (Through the
  /// pointer, not as a mutating method: the work it runs appends to the same queue.)
  @inline(never) static func runPending(_ thread: UnsafeMutablePointer<ThreadDeliveries>) {
    while !thread.pointee.pending.isEmpty {
      swap(&thread.pointee.pending, &thread.pointee.running)
      for index in thread.pointee.running.indices { thread.pointee.running[index].run() }
      thread.pointee.running.removeAll(keepingCapacity: true)
    }
  }

  /// The calling thread's, made on its first use.
  static func current(_ key: pthread_key_t) -> UnsafeMutablePointer<ThreadDeliveries> {
    if let state = pthread_getspecific(key) {
      return state.assumingMemoryBound(to: ThreadDeliveries.self)
    }
    let state = UnsafeMutablePointer<ThreadDeliveries>.allocate(capacity: 1)
    state.initialize(to: ThreadDeliveries())
    pthread_setspecific(key, state)
    return state
  }
}

/// The key of each thread's `ThreadDeliveries`, freed when the thread ends.
let threadDeliveriesKey: pthread_key_t = {
  var key = pthread_key_t()
  let created = pthread_key_create(&key) { pointer in
    guard let state = pointer?.assumingMemoryBound(to: ThreadDeliveries.self) else { return }
    state.deinitialize(count: 1)
    state.deallocate()
  }
  precondition(created == 0, "pthread_key_create failed")
  return key
}()
