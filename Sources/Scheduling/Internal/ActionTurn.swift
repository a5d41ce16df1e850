/// Makes actions take turns: at most one runs at a time, and actions that must run "now"
/// while another is running wait here, in order, for the running one to return.
///
/// The thread that ran an action calls ``finish()`` and runs whatever it returns, so a waiting
/// action runs right after the running one, on the same thread, without recursion.
struct ActionTurn<Action: Sendable>: Sendable {
  /// Whether an action is running (between ``begin(_:)`` and the `finish()` that returns nil).
  private(set) var isRunning = false
  /// Actions to run, in order, as soon as the running one returns.
  private(set) var waiting: [Action] = []

  /// Returns `action` to be run now if nothing is running (and marks it running), or queues
  /// it and returns `nil`.
  mutating func begin(_ action: Action) -> Action? {
    guard isRunning else {
      isRunning = true
      return action
    }
    waiting.append(action)
    return nil
  }

  /// Called after the running action returned: the next waiting action to run, or `nil` when
  /// none waits (then nothing is running any more).
  mutating func finish() -> Action? {
    guard isRunning else { fatalError("ActionTurn.finish(): no action is running") }
    guard !waiting.isEmpty else {
      isRunning = false
      return nil
    }
    return waiting.removeFirst()
  }

  /// Takes the waiting actions out, for the caller to release after its lock; a running one is
  /// not affected.
  mutating func dropWaiting() -> [Action] {
    defer { waiting = [] }
    return waiting
  }
}
