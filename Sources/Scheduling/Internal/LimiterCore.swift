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
  /// The running action and the ones waiting to run right after it.
  var turn: Turn<Action> { get }
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
///    for it. An action that runs in a task (see ``Action``) ends the turn of this thread: the
///    task carries on with the actions that wait when it returns.
///
/// The launcher's task, and the tasks that run actions, refer to the core weakly, so there is
/// no retain cycle; releasing the core cancels it.
final class LimiterCore<Machine: LimiterStateMachine>: Sendable
where Machine.Action == Action {
  /// The machine, the launcher commands it decided that are not carried out yet, and the tasks
  /// waiting for it to be idle.
  private struct State: Sendable {
    var machine = Machine()
    /// Commands queued while another thread was calling the launcher, oldest first.
    var commands: [LauncherCommand] = []
    /// Whether a thread is calling the launcher (then it also carries out `commands`).
    var isCallingLauncher = false
    /// The task of the asynchronous action that runs now, if one does.
    var actionTask: Int?
    /// The tasks in `waitUntilIdle()`, resumed once no action runs.
    var idleWaiters: [(id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    var nextWaiterID: UInt64 = 0
  }

  private let launcher: any PeriodicTaskLauncher
  /// Whether each action runs in a task made by its `execute` (with a clock launcher).
  private let carries: Bool
  private let state = Locked(State())

  /// Sets the launcher's interval and task; an interval that is not positive stops the program
  /// with a message naming `api`.
  init(interval: Duration, launcher: any PeriodicTaskLauncher, api: String) {
    guard interval > .zero else {
      fatalError("\(api): interval must be positive, got \(interval)")
    }
    self.launcher = launcher
    carries = launcher is ClockPeriodicTaskLauncher
    launcher.every(interval) { [weak self] in self?.tick() }
  }

  deinit {
    cancel()
  }

  /// A new action: `sync` when it may run on the calling thread, and `async`, what a task runs.
  func execute(sync: (@Sendable () -> Void)?, async: @escaping @Sendable () async -> Void) {
    let inTask: @Sendable () async -> Void = { [weak self] in
      // Noted so that a `waitUntilIdle()` from the action's own task stops instead of hanging.
      self?.state.withLock { $0.actionTask = currentTaskNumber() }
      await async()
    }
    let action = Action(sync: sync, async: inTask, carried: carries) { [weak self] in
      self?.finished()
    }
    perform(here: true) { $0.execute(action) }
  }

  /// Returns once no action runs and none waits to run right after the running one; at once
  /// when the calling task is cancelled. `api` names the call for the message of a wait on
  /// itself.
  func waitUntilIdle(api: String) async {
    if let task = currentTaskNumber(), state.withLock({ $0.actionTask }) == task {
      fatalError(
        "\(api): called from the action that is running, which would wait for its own end; "
          + "await it from outside the actions")
    }
    let id = state.withLock { state in
      defer { state.nextWaiterID += 1 }
      return state.nextWaiterID
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isIdle = state.withLock { state -> Bool in
          // Checked under the lock that the cancellation handler takes: a cancellation either
          // comes first and is seen here, or finds the waiter queued and resumes it.
          guard state.machine.turn.isRunning, !Task.isCancelled else { return true }
          state.idleWaiters.append((id, continuation))
          return false
        }
        if isIdle { continuation.resume() }
      }
    } onCancel: {
      let cancelled = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard let index = state.idleWaiters.firstIndex(where: { $0.id == id }) else { return nil }
        return state.idleWaiters.remove(at: index).continuation
      }
      cancelled?.resume()
    }
  }

  func cancel() {
    perform(here: true) { $0.cancel() }
  }

  func flush() -> Bool {
    var flushed = false
    perform(here: true) { machine in
      let result = machine.flush()
      flushed = result.flushed
      return result.step
    }
    return flushed
  }

  private func tick() {
    perform(here: false) { $0.tick() }
  }

  /// An action that ran in a task returned: runs the next one that waited for it, if any.
  private func finished() {
    run(finishTurn(), here: false)
  }

  /// The running action returned: takes the next one to run, or, when none waits, ends the
  /// turn and resumes the tasks waiting for the limiter to be idle.
  private func finishTurn() -> Action? {
    let (next, idle) = state.withLock {
      state -> (Action?, [CheckedContinuation<Void, Never>]) in
      state.actionTask = nil
      let next = state.machine.finish()
      guard next == nil else { return (next, []) }
      defer { state.idleWaiters = [] }
      return (nil, state.idleWaiters.map(\.continuation))
    }
    for waiter in idle { waiter.resume() }
    return next
  }

  /// Runs one step under the lock; then, with no lock held, carries out its launcher command
  /// (and those queued meanwhile) if no other thread is calling the launcher, releases the
  /// actions it dropped, and runs the action it asks for and every one that waited for it.
  /// `here` says whether the step comes from the user's own call (not from a tick).
  private func perform(here: Bool, _ step: (inout Machine) -> LimiterStep<Action>) {
    var (next, command) = state.withLock { state -> (LimiterStep<Action>, LauncherCommand?) in
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
    run(next.run.take(), here: here)
  }

  /// Runs `action`, then each action that waited for it, for as long as they run on this
  /// thread; one that runs in a task takes the rest along when it returns (see `finished()`).
  private func run(_ first: Action?, here: Bool) {
    var next = first
    var here = here
    while let action = next, action.run(here: here) {
      next = finishTurn()
      here = false  // an action that waited runs in its own carrier, if it has one
    }
  }
}
