/// What a step of a limiter's state machine asks for: an action to run now, on the calling
/// thread, and a command for the launcher.
struct LimiterStep<Action: Sendable>: Sendable {
  var run: Action?
  var launcher: LauncherCommand?
}

/// The pure state machine behind a ``RateLimiter`` or a ``Debouncer``.
protocol LimiterStateMachine<Action>: Sendable {
  associatedtype Action: Sendable
  init()
  /// A new action.
  mutating func execute(_ action: Action) -> LimiterStep<Action>
  /// A launcher tick.
  mutating func tick() -> LimiterStep<Action>
  /// The action that just ran returned: the next one to run on the same thread, if any.
  mutating func finish() -> Action?
  /// Drops the kept and waiting actions and goes quiescent.
  mutating func cancel() -> LauncherCommand?
  /// Runs the kept action now; `flushed` is `false` when none was kept.
  mutating func flush() -> (flushed: Bool, step: LimiterStep<Action>)
}

/// The thin locked shell shared by ``RateLimiter`` and ``Debouncer``: it runs each step of the
/// state machine under a lock, carries out the launcher command with the lock held (launchers
/// never run the task from `start()` or `stop()`, so the launcher always follows the order of
/// the steps), and runs actions with no lock held, one after the other.
///
/// The launcher's task refers to the core weakly, so there is no retain cycle; releasing the
/// core cancels it.
final class LimiterCore<Machine: LimiterStateMachine>: Sendable
where Machine.Action == Work {
  private let launcher: any PeriodicTaskLauncher
  private let state = Locked(Machine())

  init(interval: Duration, launcher: any PeriodicTaskLauncher) {
    self.launcher = launcher
    launcher.every(interval) { [weak self] in self?.tick() }
  }

  deinit {
    cancel()
  }

  func execute(_ action: @escaping @Sendable () -> Void) {
    let work = Work(run: action)
    perform { $0.execute(work) }
  }

  func cancel() {
    state.withLock { launcher.perform($0.cancel()) }
  }

  func flush() -> Bool {
    var flushed = false
    perform { machine in
      let result = machine.flush()
      flushed = result.flushed
      return result.step
    }
    return flushed
  }

  private func tick() {
    perform { $0.tick() }
  }

  /// Runs one step under the lock, then the action it asks for, and every action that waited
  /// for it, with no lock held.
  private func perform(_ step: (inout Machine) -> LimiterStep<Work>) {
    let first = state.withLock { machine in
      let next = step(&machine)
      launcher.perform(next.launcher)
      return next.run
    }
    guard let first else { return }
    first.run()
    while let next = state.withLock({ $0.finish() }) {
      next.run()
    }
  }
}
