import TinyInternals

/// The pure state machine of a ``RateLimiter``: each step says which action to run, what the
/// launcher must do, and which actions it dropped. `LimiterCore` runs it under a lock and does
/// all three after unlocking.
///
/// Invariants: a pending action implies active; while an action runs, a tick does nothing
/// (the pending action waits for the next tick), so actions never overlap.
struct RateLimiterState<Action: Sendable>: LimiterStateMachine {
  /// Whether the launcher should be ticking: from the first `execute` of a burst to the tick
  /// that finds nothing pending.
  private(set) var isActive = false
  /// The latest action that arrived since the last run, to run at the next tick.
  private(set) var pending: Action?
  /// The running action and the ones waiting for it.
  private(set) var turn = Turn<Action>()

  typealias Step = LimiterStep<Action>

  /// A new action: quiescent, it runs now (or right after a still-running one) and the
  /// launcher starts; active, it replaces the pending action.
  mutating func execute(_ action: Action) -> Step {
    guard !isActive else {
      let replaced = pending.take()
      pending = action
      return Step(dropped: replaced)
    }
    isActive = true
    return Step(run: turn.begin(action), launcher: .start)
  }

  /// A launcher tick: runs the pending action, or, with none, stops the launcher and goes
  /// quiescent. While an action is running the tick is skipped; so is a tick that arrives
  /// quiescent (one already on its way when the launcher stopped).
  mutating func tick() -> Step {
    guard isActive, !turn.isRunning else { return Step() }
    guard let action = pending else {
      isActive = false
      return Step(launcher: .stop)
    }
    pending = nil
    return Step(run: turn.begin(action))
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

  /// Runs the pending action now (or right after a running one); `false` when none is pending.
  /// The limiter stays active, so the next action still waits for a tick.
  mutating func flush() -> (flushed: Bool, step: Step) {
    guard let action = pending else { return (false, Step()) }
    pending = nil
    return (true, Step(run: turn.begin(action)))
  }
}
