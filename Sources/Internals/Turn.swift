/// A turn that tasks take one at a time, in the order they asked for it: the task that has it
/// keeps it, across suspensions, until it calls ``end()``, which hands it to the next one.
package final class Turn: Sendable {
  /// Whether a task has the turn, and the tasks waiting for it, oldest first.
  private let state = Locked((isTaken: false, waiting: [CheckedContinuation<Void, Never>]()))

  package init() {}

  /// Suspends until the turn is the calling task's.
  package func take() async {
    await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
      let mine = state.withLock { state -> Bool in
        guard state.isTaken else {
          state.isTaken = true
          return true
        }
        state.waiting.append(turn)
        return false
      }
      if mine { turn.resume() }
    }
  }

  /// Hands the turn to the task that has waited longest, or frees it when none waits.
  package func end() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiting.isEmpty else {
        state.isTaken = false
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
