/// Runs at most one action per interval: the first at once, then only the latest of those that
/// arrive meanwhile, one per tick.
///
/// When the limiter is quiescent, `execute(_:)` runs the action at once and starts the
/// launcher. While it is active, each new action replaces the kept one. Each tick runs the kept
/// action; a tick that finds none stops the launcher, and the limiter is quiescent again, so
/// the next action runs at once.
///
/// ```swift
/// let limiter = RateLimiter(interval: .milliseconds(250), clock: Current.clock)
/// for query in ["s", "sw", "swi", "swif", "swift"] {   // typed within 250 ms
///   limiter.execute { await search(query) }
/// }
/// // search("s") at once, search("swift") at the first tick, 250 ms later; the rest never.
/// ```
///
/// - On a clock (``init(interval:clock:)``), the ticks come from the clock, so a test moves
///   them with a manual clock, and each action reads the task-local values (such as the world
///   of a `withWorld` scope) of the code that passed it to `execute`. With a launcher
///   (``init(interval:launcher:)``), an action that a tick runs reads the launcher's.
/// - Actions never overlap, asynchronous ones included: while one runs, a tick is skipped and
///   the kept action waits for the next tick, so a slow action slows the rate rather than
///   doubling up.
/// - ``cancel()`` drops the kept action and makes the limiter quiescent; ``flush()`` runs the
///   kept action now; ``waitUntilIdle()`` returns once no action runs and none is due now (a
///   test awaits it where an action starts at once).
/// - It is safe from any thread; actions may call the limiter (an `execute` from inside an
///   action is kept for the next tick). Releasing the limiter drops the kept action and stops
///   the launcher. The launcher refers to the limiter weakly, so there is no retain cycle.
/// - No call waits for another thread: the limiter's lock guards its state only. Actions run,
///   the launcher is called, and a replaced or cancelled action is released with no lock held,
///   so the `deinit` of what an action captured may use the limiter too.
/// - The launcher follows the limiter's decisions in order. When another thread is calling the
///   launcher at that moment, that thread makes the call, right after its own: so `execute`,
///   `cancel()` and `flush()` can return before the launcher has started or stopped. A tick that
///   comes meanwhile finds the limiter's own state and does what it says (a quiescent limiter
///   ignores it).
public final class RateLimiter: Sendable {
  /// The time between two runs after the first.
  ///
  /// ```swift
  /// RateLimiter(interval: .seconds(1)).interval    // .seconds(1)
  /// ```
  public let interval: Duration

  private let core: LimiterCore<RateLimiterState<Action>>

  /// Creates a quiescent limiter that runs at most one action per `interval` of `clock`.
  ///
  /// It ticks with a ``ClockPeriodicTaskLauncher`` on `clock`: pass the world's clock, which a
  /// test replaces with a manual clock. Every action runs in a task made by the `execute` that
  /// passed it, except a synchronous one that runs at once, inside `execute` or ``flush()``:
  /// so each action reads the task-local values of the code that passed it. An interval that
  /// is not positive is a programmer error and stops the program with a message naming it.
  ///
  /// ```swift
  /// let limiter = RateLimiter(interval: .milliseconds(250), clock: Current.clock)
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The minimum time between two runs; must be positive.
  ///   - clock: The clock to tick on: a concrete clock, or an `any Clock<Duration>` such as
  ///     `Current.clock` or one a type stores.
  public init(interval: Duration, clock: any Clock<Duration>) {
    self.interval = interval
    core = LimiterCore(
      interval: interval, launcher: ClockPeriodicTaskLauncher(clock: clock),
      api: "RateLimiter(interval:clock:)")
  }

  /// Creates a quiescent limiter that runs at most one action per `interval`, ticked by
  /// `launcher`.
  ///
  /// An interval that is not positive is a programmer error and stops the program with a
  /// message naming it. The limiter sets the launcher's interval and task and starts and stops
  /// it; a launcher serves one limiter at a time.
  ///
  /// ```swift
  /// let limiter = RateLimiter(interval: .milliseconds(250))
  /// let tested = RateLimiter(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The minimum time between two runs; must be positive.
  ///   - launcher: What ticks every `interval`: a new ``DefaultPeriodicTaskLauncher`` by
  ///     default (the actions that ticks run then run on its private queue), a
  ///     ``FakePeriodicTaskLauncher`` in tests, or a ``ClockPeriodicTaskLauncher``.
  public init(
    interval: Duration,
    launcher: any PeriodicTaskLauncher = DefaultPeriodicTaskLauncher()
  ) {
    self.interval = interval
    core = LimiterCore(
      interval: interval, launcher: launcher, api: "RateLimiter(interval:launcher:)")
  }

  /// Runs `action` at once when the limiter is quiescent; otherwise keeps it, in place of any
  /// kept action, for the next tick.
  ///
  /// When quiescent, `action` runs on the calling thread before `execute` returns (or, if an
  /// action started earlier is still running, right after it returns).
  ///
  /// ```swift
  /// limiter.execute { print(1) }    // prints 1 now
  /// limiter.execute { print(2) }    // kept
  /// limiter.execute { print(3) }    // kept instead of 2: prints 3 at the next tick
  /// ```
  ///
  /// - Parameter action: The work to rate-limit.
  public func execute(_ action: @escaping @Sendable () -> Void) {
    core.execute(sync: action) { action() }
  }

  /// Runs the asynchronous `action` in a new task at once when the limiter is quiescent;
  /// otherwise keeps it, in place of any kept action, for the next tick.
  ///
  /// The limiter counts the action as running until it returns: no other action of the limiter
  /// starts meanwhile, and a tick that comes meanwhile is skipped (the kept action waits for
  /// the next tick). With a clock, the task is made by this call, so the action reads the
  /// caller's task-local values; with a launcher, the task is made where a synchronous action
  /// would run (this call, or the tick).
  ///
  /// ```swift
  /// limiter.execute { await search("s") }     // starts now
  /// limiter.execute { await search("sw") }    // kept for the next tick
  /// ```
  ///
  /// - Parameter action: The work to rate-limit.
  public func execute(_ action: @escaping @Sendable () async -> Void) {
    core.execute(sync: nil, async: action)
  }

  /// Drops the kept action and makes the limiter quiescent, so the next `execute(_:)` runs
  /// at once.
  ///
  /// An action already running finishes; no kept action starts after `cancel()` returns. It
  /// does nothing to a quiescent limiter, and it is safe to call from inside an action.
  ///
  /// ```swift
  /// limiter.execute { print(1) }    // prints 1
  /// limiter.execute { print(2) }    // kept
  /// limiter.cancel()                // 2 never prints
  /// limiter.execute { print(3) }    // prints 3 now
  /// ```
  public func cancel() {
    core.cancel()
  }

  /// Runs the kept action now, on the calling thread, and returns whether there was one.
  ///
  /// An asynchronous action starts now, in its task. The limiter stays active, so an action
  /// that arrives next still waits for a tick. If another action is running (on another
  /// thread, or the caller itself when called from inside an action), the kept action runs
  /// right after it returns.
  ///
  /// ```swift
  /// limiter.execute { print(1) }    // prints 1
  /// limiter.execute { print(2) }    // kept
  /// limiter.flush()                 // prints 2; true
  /// limiter.flush()                 // false: nothing kept
  /// ```
  ///
  /// - Returns: `true` if an action was kept (it has run, or runs right after the running
  ///   one), `false` if none was.
  @discardableResult
  public func flush() -> Bool {
    core.flush()
  }

  /// Returns once no action of the limiter is running and none is due to run now.
  ///
  /// An action that `execute` or ``flush()`` starts at once may run on in its own task, which a
  /// manual clock's `advance` does not wake and so cannot follow: a test awaits this before it
  /// moves the clock to the next tick. Actions kept for a later tick do not count; an action
  /// waiting to run right after the running one does. It returns at once when the limiter is
  /// idle, and when the calling task is cancelled. Called from inside the running action, it
  /// would wait for its own end: that stops the program with a message naming it.
  ///
  /// ```swift
  /// limiter.execute { await refresh() }   // starts now, in its own task
  /// await limiter.waitUntilIdle()         // refresh() has returned
  /// ```
  public func waitUntilIdle() async {
    await core.waitUntilIdle(api: "RateLimiter.waitUntilIdle()")
  }
}
