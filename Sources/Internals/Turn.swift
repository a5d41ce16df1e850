/// Makes work take turns: at most one piece runs at a time, and the pieces that come while
/// another runs wait here, in order, for it to end.
///
/// A pure state machine, kept under its owner's lock: whoever ended the running piece runs
/// (or resumes) what ``finish()`` returns, so the next piece runs right after, without
/// recursion. ``TaskTurn`` is the same for tasks that suspend until their turn.
package struct Turn<Waiter: Sendable>: Sendable {
  /// Whether a piece is running (between ``begin(_:)`` and the `finish()` that returns nil).
  package private(set) var isRunning = false
  /// The pieces to run, in order, as soon as the running one ends.
  package private(set) var waiting: [Waiter] = []

  package init() {}

  /// Returns `waiter` to be run now if nothing is running (and marks it running), or queues
  /// it and returns `nil`.
  package mutating func begin(_ waiter: Waiter) -> Waiter? {
    guard isRunning else {
      isRunning = true
      return waiter
    }
    waiting.append(waiter)
    return nil
  }

  /// Called after the running piece ended: the next waiting one to run, or `nil` when none
  /// waits (then nothing is running any more).
  package mutating func finish() -> Waiter? {
    guard isRunning else { fatalError("Turn.finish(): nothing is running") }
    guard !waiting.isEmpty else {
      isRunning = false
      return nil
    }
    return waiting.removeFirst()
  }

  /// Takes the waiting pieces out, for the caller to release after its lock; a running one is
  /// not affected.
  package mutating func dropWaiting() -> [Waiter] {
    defer { waiting = [] }
    return waiting
  }
}

/// A ``Turn`` for tasks: the task that has it keeps it, across suspensions, until it calls
/// ``end()``, which hands it to the task that has waited longest.
package final class TaskTurn: Sendable {
  private let turn = Locked(Turn<CheckedContinuation<Void, Never>>())

  package init() {}

  /// Suspends until the turn is the calling task's.
  package func take() async {
    await withCheckedContinuation { (mine: CheckedContinuation<Void, Never>) in
      turn.withLock { $0.begin(mine) }?.resume()
    }
  }

  /// Hands the turn to the task that has waited longest, or frees it when none waits.
  package func end() {
    turn.withLock { $0.finish() }?.resume()
  }
}
