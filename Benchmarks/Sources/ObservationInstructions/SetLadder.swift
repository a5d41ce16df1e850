// The ladder of a set to watchers. Rung 0 is the floor (`LockAndClosures`: a lock, the array of
// closures copied under it, the calls after unlocking); each rung below adds one guarantee that
// `Atom` documents for a set with watchers:
//
//   1. `FlaggedStage`: a stopped watch receives nothing more, even from a change made before it
//      stopped: each watch has a stop flag, read before each call.
//   2. `RecordedStage`: the change record (old, new, the error slot), the version, the check for
//      optimistic layers and the check for an Observation registration (see `Core`).
//   3. `Stage<LockedTurn>.setNested`: serial delivery. Changes reach the watchers one at a time,
//      in the order they took effect: the deliverer's turn is taken under the lock, a change
//      made meanwhile waits in a list under the lock, and the deliverer ends its turn under the
//      lock after delivering, taking what waits.
//   4. `Stage<LockedTurn>.set`: deliveries on one thread never nest. A delivery started inside
//      another waits in a queue of the thread's own (DeliveryOrder.swift), and runs once the
//      current one returns; the change itself waits in a slot of the stage that only the
//      holder of its turn touches, so the queue holds the stage alone and nothing is allocated.
//      This rung has the guarantees of `Atom.set` with watchers, and nothing else.
//
// A variant of rung 4, `Stage<AtomicTurn>.set`, ends the turn with one compare-and-swap outside
// the lock instead of taking the lock a second time.
//
// Each rung hands out of the lock only what a delivery reads (`Taken`), and makes the change
// record after unlocking, from the value it set: what a stand-in passes through the lock costs
// instructions of its own.

import Synchronization

/// Rung 1: the floor, with a stop flag per watch.
final class FlaggedStage: Sendable {
  struct Watch {
    let flag: Flag
    let handler: @Sendable (Int, Int) -> Void
  }
  struct State {
    var value = 0
    var watches: [Watch] = []
  }
  let state = Mutex(State())

  /// Adds a watch; returns its stop flag.
  @discardableResult func watch(_ handler: @escaping @Sendable (Int, Int) -> Void) -> Flag {
    let flag = Flag()
    state.withLock { $0.watches.append(Watch(flag: flag, handler: handler)) }
    return flag
  }

  func set(_ value: Int) {
    let (old, watches) = state.withLock { state in
      defer { state.value = value }
      return (state.value, state.watches)
    }
    for index in watches.indices where !watches[index].flag.isRaised {
      watches[index].handler(old, value)
    }
  }
}

/// Rung 2: rung 1, with the change record and the bookkeeping of `Core`.
final class RecordedStage: Sendable {
  let state = Mutex(Core())

  @discardableResult func watch(_ handler: @escaping @Sendable (Change) -> Void) -> Flag {
    let flag = Flag()
    state.withLock { $0.watches.append(Watch(flag: flag, handler: handler)) }
    return flag
  }

  func set(_ value: Int) {
    let taken = state.withLock { $0.show(value) }
    send(Change(old: taken.old, new: value, error: nil), taken)
  }
}

/// What a stage keeps under its lock from rung 3 up: the bookkeeping, whether a thread is
/// delivering, the changes that wait for it and, for a derived value only, the tickets of its
/// recomputations.
struct StageState {
  var core = Core()
  var isDelivering = false
  var waiting: [Batch] = []
  var ticketTaken: UInt64 = 0
  var ticketShown: UInt64 = 0

  /// Shows `new`; returns what to deliver when the caller took the turn and is to deliver it
  /// now, or `nil` when nobody is to be told or the change waits for the deliverer.
  mutating func show(
    _ new: Int, error: (any Error)?, turn: borrowing some TurnRule & ~Copyable
  ) -> Taken? {
    let taken = core.show(new)
    guard !taken.watches.isEmpty || taken.isReported else { return nil }
    guard turn.take(&isDelivering) else {
      waiting.append(Batch(change: Change(old: taken.old, new: new, error: error), taken: taken))
      return nil
    }
    return taken
  }

  /// The deliverer, after a round: what waits, or `nil`, and then its turn is over.
  mutating func takeWaiting(turn: borrowing some TurnRule & ~Copyable) -> [Batch]? {
    guard !waiting.isEmpty else {
      turn.end(&isDelivering)
      return nil
    }
    turn.keep()
    defer { waiting = [] }
    return waiting
  }
}

/// Rungs 3 and 4, and the stages of the derived ladder.
final class Stage<Turn: TurnRule & ~Copyable>: Sendable {
  let state = Mutex(StageState())
  let turn = Turn()
  /// The key of the threads' deliveries, kept here so that a delivery does not check that the
  /// global is made.
  let threadKey = threadDeliveriesKey
  /// The change this stage's deliverer made inside a delivery on its own thread, until that
  /// delivery returned.
  // nonisolated(unsafe): only the thread that holds the stage's turn touches it, and the turn
  // passes from thread to thread under the lock (or by the atomic turn's ordering).
  nonisolated(unsafe) var deferred: Batch?

  @discardableResult func watch(_ handler: @escaping @Sendable (Change) -> Void) -> Flag {
    let flag = Flag()
    state.withLock { $0.core.watches.append(Watch(flag: flag, handler: handler)) }
    return flag
  }

  /// Rung 3: a serial set, delivered at once, inside a delivery that runs on this thread.
  func setNested(_ value: Int) {
    guard let taken = state.withLock({ $0.show(value, error: nil, turn: turn) }) else { return }
    deliverNested(Change(old: taken.old, new: value, error: nil), taken)
  }

  /// Rung 4: a serial set whose delivery never nests in another.
  func set(_ value: Int) {
    guard let taken = state.withLock({ $0.show(value, error: nil, turn: turn) }) else { return }
    deliver(Change(old: taken.old, new: value, error: nil), taken)
  }

  /// Delivers a change, then what waits, until the turn ends.
  func deliverNested(_ change: Change, _ taken: borrowing Taken) {
    send(change, taken)
    deliverWaiting()
  }

  /// The deliverer, after a round: delivers what waits, round after round, until the turn ends.
  func deliverWaiting() {
    while !turn.endsWithoutLock(), let next = state.withLock({ $0.takeWaiting(turn: turn) }) {
      for index in next.indices { send(next[index].change, next[index].taken) }
    }
  }

  /// Delivers a change as ``deliverNested(_:_:)`` does, or, inside a delivery on this thread,
  /// once that delivery returned.
  func deliver(_ change: Change, _ taken: Taken) {
    let thread = ThreadDeliveries.current(threadKey)
    guard !thread.pointee.isDelivering else { return enqueue(change, taken, on: thread) }
    thread.pointee.isDelivering = true
    deliverNested(change, taken)
    if !thread.pointee.pending.isEmpty { ThreadDeliveries.runPending(thread) }
    thread.pointee.isDelivering = false
  }

  /// Inside a delivery on this thread: the thread holds this stage's turn, so the change waits
  /// in `deferred`, which only the holder of the turn touches, and the thread delivers it, then
  /// what waits, once its current delivery returned. The queued closure holds the stage alone,
  /// so queueing it allocates nothing.
  @inline(never) func enqueue(
    _ change: Change, _ taken: Taken, on thread: UnsafeMutablePointer<ThreadDeliveries>
  ) {
    deferred = Batch(change: change, taken: taken)
    thread.pointee.pending.append(ThreadDeliveries.Work { self.deliverDeferred() })
  }

  /// The queued delivery of ``enqueue(_:_:on:)``.
  func deliverDeferred() {
    guard let batch = deferred.take() else { fatalError("no deferred change") }
    deliverNested(batch.change, batch.taken)
  }
}
