import TinyInternals

/// What a step of a limiter's state machine asks for: an action to run now, on the calling
/// thread, a command for the launcher, and the actions it dropped without running them.
struct LimiterStep<Action: Sendable>: Sendable {
  var run: Action?
  var launcher: LauncherCommand?
  /// The pending action the step replaced or cancelled: released by the core after its lock,
  /// since releasing a user's closure may run a `deinit` that calls the limiter.
  var dropped: Action?
  /// The actions that were waiting for the running one and that the step cancelled.
  var droppedWaiting: [Action] = []
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
  /// Drops the kept and waiting actions and goes quiescent; runs nothing.
  mutating func cancel() -> LimiterStep<Action>
  /// Runs the kept action now; `flushed` is `false` when none was kept.
  mutating func flush() -> (flushed: Bool, step: LimiterStep<Action>)
}

/// The thin locked shell shared by ``RateLimiter`` and ``Debouncer``.
///
/// Each step of the state machine runs under the lock; everything that involves code of the
/// user's runs after it, with no lock held, in this order:
///
/// 1. **Launcher commands.** The launcher may be the user's own type, so it is never called
///    under the lock. Commands are queued under the lock in the order of the steps, and one
///    thread at a time carries them out: the thread whose step finds nobody calling the
///    launcher calls it, then carries out the commands queued meanwhile, until none is left;
///    a thread whose step finds the launcher busy leaves its command to that thread and goes
///    on. So the launcher follows the order of the steps, a launcher that calls back into the
///    limiter from `start()` or `stop()` only queues a command, and nothing waits. Ticks that a
///    command not yet carried out would have prevented find the machine quiescent and do
///    nothing.
/// 2. **Dropped actions** (replaced or cancelled), released: their `deinit` may use the
///    limiter.
/// 3. **Actions**, one after the other: the one the step asks for, then every one that waited
///    for it.
///
/// The launcher's task refers to the core weakly, so there is no retain cycle; releasing the
/// core cancels it.
final class LimiterCore<Machine: LimiterStateMachine>: Sendable
where Machine.Action == Work {
  /// The machine, and the launcher commands it decided that are not carried out yet.
  private struct State: Sendable {
    var machine = Machine()
    /// Commands queued while another thread was calling the launcher, oldest first.
    var commands: [LauncherCommand] = []
    /// Whether a thread is calling the launcher (then it also carries out `commands`).
    var isCallingLauncher = false
  }

  private let launcher: any PeriodicTaskLauncher
  private let state = Locked(State())

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
    perform { $0.cancel() }
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

  /// Runs one step under the lock; then, with no lock held, carries out its launcher command
  /// (and those queued meanwhile) if no other thread is calling the launcher, releases the
  /// actions it dropped, and runs the action it asks for and every one that waited for it.
  private func perform(_ step: (inout Machine) -> LimiterStep<Work>) {
    var (next, command) = state.withLock { state -> (LimiterStep<Work>, LauncherCommand?) in
      var next = step(&state.machine)
      guard let command = next.launcher else { return (next, nil) }
      next.launcher = nil
      if state.isCallingLauncher {
        state.commands.append(command)
        return (next, nil)
      }
      state.isCallingLauncher = true
      return (next, command)
    }
    while let current = command {
      launcher.perform(current)
      command = state.withLock { state in
        guard !state.commands.isEmpty else {
          state.isCallingLauncher = false
          return nil
        }
        return state.commands.removeFirst()
      }
    }
    // Released here, after the launcher calls and with no lock held, through the trampoline:
    // a dropped action may hold another limiter, whose own dropped action holds another, and
    // so on (a chain freed as each limiter goes away cancels its actions), one after another.
    if next.dropped != nil || !next.droppedWaiting.isEmpty {
      let waiting = next.droppedWaiting
      next.droppedWaiting = []
      Trampoline.release((next.dropped.take(), consume waiting))
    }
    guard let first = next.run.take() else { return }
    first.run()
    while let following = state.withLock({ $0.machine.finish() }) {
      following.run()
    }
  }
}
