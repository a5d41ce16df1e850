import TinyInternals

/// The pure state machine of a ``Debouncer``: each step says which action to run, what the
/// launcher must do, and which actions it dropped. `LimiterCore` runs it under a lock and does
/// all three after unlocking.
///
/// Every `execute` restarts the launcher, so its first tick comes one full interval after the
/// latest action; that tick runs the action and stops the launcher.
struct DebouncerState<Action: Sendable>: LimiterStateMachine {
  /// Whether the launcher should be ticking: from an `execute` to the tick that runs it.
  private(set) var isActive = false
  /// The latest action, waiting for a quiet interval.
  private(set) var pending: Action?
  /// The running action and the ones waiting for it.
  private(set) var turn = Turn<Action>()

  typealias Step = LimiterStep<Action>

  /// A new action replaces the pending one and restarts the quiet interval.
  mutating func execute(_ action: Action) -> Step {
    let replaced = pending.take()
    pending = action
    defer { isActive = true }
    return Step(launcher: isActive ? .restart : .start, dropped: replaced)
  }

  /// A launcher tick, one quiet interval after the latest action: runs it and goes quiescent.
  /// While an action is running the tick is skipped and the pending action waits for the next
  /// tick; a tick that arrives quiescent (already on its way at a stop) does nothing.
  mutating func tick() -> Step {
    guard isActive, !turn.isRunning else { return Step() }
    isActive = false
    guard let action = pending else { return Step(launcher: .stop) }
    pending = nil
    return Step(run: turn.begin(action), launcher: .stop)
  }

  /// The action that just ran returned: the next one to run on the same thread, if any.
  mutating func finish() -> Action? {
    turn.finish()
  }

  /// Drops the pending action and the ones waiting to run, and goes quiescent.
  mutating func cancel() -> Step {
    defer { isActive = false }
    return Step(
      launcher: isActive ? .stop : nil, dropped: pending.take(), droppedWaiting: turn.dropWaiting())
  }

  /// Runs the pending action now (or right after a running one) and goes quiescent; `false`
  /// when none is pending.
  mutating func flush() -> (flushed: Bool, step: Step) {
    guard let action = pending else { return (false, Step()) }
    pending = nil
    isActive = false
    return (true, Step(run: turn.begin(action), launcher: .stop))
  }
}
