/// Runs the latest action once no new action has arrived for a full interval.
///
/// Each `execute(_:)` replaces the waiting action and restarts the launcher, so its first
/// tick comes exactly one interval after the latest action; that tick runs the action and
/// stops the launcher.
///
/// ```swift
/// let debouncer = Debouncer(interval: .milliseconds(300), clock: Current.clock)
/// for query in ["s", "sw", "swi", "swif", "swift"] {   // typed 100 ms apart
///   debouncer.execute { await search(query) }
/// }
/// // search("swift") once, 300 ms after the last keystroke; the rest never.
/// ```
///
/// - On a clock (``init(interval:clock:)``), the ticks come from the clock, so a test moves
///   them with a manual clock, and each action runs in a task made by the `execute` that passed
///   it: it reads that code's task-local values (such as the world of a `withWorld` scope).
///   With a launcher (``init(interval:launcher:)``), actions run where its ticks run.
/// - Actions never overlap, asynchronous ones included: a tick that comes while an action runs
///   is skipped, and the waiting action runs at the next tick.
/// - ``cancel()`` drops the waiting action; ``flush()`` runs it now; ``waitUntilIdle()``
///   returns once no action runs and none is due now.
/// - It is safe from any thread and from inside an action. Releasing the debouncer drops the
///   waiting action and stops the launcher. The launcher refers to the debouncer weakly, so
///   there is no retain cycle.
/// - No call waits for another thread. Actions run, the launcher is called, and a replaced or
///   cancelled action is released with no lock held, so the `deinit` of what an action captured
///   may use the debouncer too. The launcher follows the debouncer's decisions in order; when
///   another thread is calling the launcher at that moment, that thread makes the call, right
///   after its own.
public final class Debouncer: Sendable {
  /// The quiet time that must pass after the latest action before it runs.
  ///
  /// ```swift
  /// Debouncer(interval: .milliseconds(300)).interval    // .milliseconds(300)
  /// ```
  public let interval: Duration

  private let core: LimiterCore<DebouncerState<Action>>

  /// Creates a debouncer that runs an action once `interval` of `clock` has passed without a
  /// newer one.
  ///
  /// It ticks with a ``ClockPeriodicTaskLauncher`` on `clock`: pass the world's clock, which a
  /// test replaces with a manual clock. Each action runs in a task made by the `execute` that
  /// passed it (a flushed synchronous one runs inside ``flush()``), so it reads the task-local
  /// values of the code that passed it. An interval that is not positive is a programmer error
  /// and stops the program with a message naming it.
  ///
  /// ```swift
  /// let debouncer = Debouncer(interval: .milliseconds(300), clock: Current.clock)
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The quiet time before an action runs; must be positive.
  ///   - clock: The clock to tick on: a concrete clock, or an `any Clock<Duration>` such as
  ///     `Current.clock` or one a type stores.
  public init(interval: Duration, clock: any Clock<Duration>) {
    self.interval = interval
    core = LimiterCore(
      interval: interval, launcher: ClockPeriodicTaskLauncher(clock: clock),
      api: "Debouncer(interval:clock:)")
  }

  /// Creates a debouncer that runs an action once `interval` has passed without a newer one,
  /// ticked by `launcher`.
  ///
  /// An interval that is not positive is a programmer error and stops the program with a
  /// message naming it. The debouncer sets the launcher's interval and task and starts and
  /// stops it; a launcher serves one debouncer at a time.
  ///
  /// ```swift
  /// let debouncer = Debouncer(interval: .milliseconds(300))
  /// let tested = Debouncer(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The quiet time before an action runs; must be positive.
  ///   - launcher: What ticks every `interval`: a new ``DefaultPeriodicTaskLauncher`` by
  ///     default (actions then run on its private queue), a ``FakePeriodicTaskLauncher`` in
  ///     tests, or a ``ClockPeriodicTaskLauncher``.
  public init(
    interval: Duration,
    launcher: any PeriodicTaskLauncher = DefaultPeriodicTaskLauncher()
  ) {
    self.interval = interval
    core = LimiterCore(interval: interval, launcher: launcher, api: "Debouncer(interval:launcher:)")
  }

  /// Makes `action` the one to run after the next quiet interval, replacing any waiting
  /// action, and restarts the interval.
  ///
  /// Never runs anything itself.
  ///
  /// ```swift
  /// debouncer.execute { print(1) }
  /// debouncer.execute { print(2) }  // replaces 1: prints 2, one interval after this call
  /// ```
  ///
  /// - Parameter action: The work to debounce.
  public func execute(_ action: @escaping @Sendable () -> Void) {
    core.execute(sync: action) { action() }
  }

  /// Makes the asynchronous `action` the one to run after the next quiet interval, replacing
  /// any waiting action, and restarts the interval.
  ///
  /// The action runs in a task; the debouncer counts it as running until it returns, so no
  /// other action starts meanwhile, and a tick that comes meanwhile is skipped (the waiting
  /// action runs at the next tick). With a clock, the task is made by this call, so the action
  /// reads the caller's task-local values; with a launcher, it is made where its tick runs.
  ///
  /// ```swift
  /// debouncer.execute { await search("swift") }   // one quiet interval after this call
  /// ```
  ///
  /// - Parameter action: The work to debounce.
  public func execute(_ action: @escaping @Sendable () async -> Void) {
    core.execute(sync: nil, async: action)
  }

  /// Drops the waiting action; no action starts after `cancel()` returns unless executed
  /// again.
  ///
  /// An action already running finishes. It does nothing when none waits, and it is safe to
  /// call from inside an action.
  ///
  /// ```swift
  /// debouncer.execute { print(1) }
  /// debouncer.cancel()              // 1 never prints
  /// ```
  public func cancel() {
    core.cancel()
  }

  /// Runs the waiting action now, on the calling thread, and returns whether there was one.
  ///
  /// An asynchronous action starts now, in its task. If another action is running (on another
  /// thread, or the caller itself when called from inside an action), the waiting action runs
  /// right after it returns.
  ///
  /// ```swift
  /// debouncer.execute { print(1) }
  /// debouncer.flush()               // prints 1; true
  /// debouncer.flush()               // false: nothing waits
  /// ```
  ///
  /// - Returns: `true` if an action was waiting (it has run, or runs right after the running
  ///   one), `false` if none was.
  @discardableResult
  public func flush() -> Bool {
    core.flush()
  }

  /// Returns once no action of the debouncer is running and none is due to run now.
  ///
  /// An asynchronous action that ``flush()`` or a tick starts runs in its own task: a test
  /// awaits this before it checks what the action did, when nothing else tells it that the
  /// action has returned. An action waiting for a quiet interval does not count; one waiting to
  /// run right after the running one does. It returns at once when the debouncer is idle, and
  /// when the calling task is cancelled. Called from inside the running action, it would wait
  /// for its own end: that stops the program with a message naming it.
  ///
  /// ```swift
  /// debouncer.execute { await save(draft) }
  /// debouncer.flush()                     // save(draft) starts now, in its own task
  /// await debouncer.waitUntilIdle()       // save(draft) has returned
  /// ```
  public func waitUntilIdle() async {
    await core.waitUntilIdle(api: "Debouncer.waitUntilIdle()")
  }
}
