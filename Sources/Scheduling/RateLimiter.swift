/// Runs at most one action per interval: the first at once, then only the latest of those that
/// arrive meanwhile, one per tick.
///
/// When the limiter is quiescent, ``execute(_:)`` runs the action at once, on the caller's
/// thread, and starts the launcher. While it is active, each new action replaces the kept one.
/// Each tick runs the kept action; a tick that finds none stops the launcher, and the limiter
/// is quiescent again, so the next action runs at once.
///
/// ```swift
/// let limiter = RateLimiter(interval: .milliseconds(250))
/// for query in ["s", "sw", "swi", "swif", "swift"] {   // typed within 250 ms
///   limiter.execute { search(query) }
/// }
/// // search("s") at once, search("swift") at the first tick, 250 ms later; the rest never.
/// ```
///
/// - Actions never overlap: while one runs, a tick is skipped and the kept action waits for
///   the next tick, so a slow action slows the rate rather than doubling up.
/// - ``cancel()`` drops the kept action and makes the limiter quiescent; ``flush()`` runs the
///   kept action now.
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

  private let core: LimiterCore<RateLimiterState<Work>>

  /// Creates a quiescent limiter that runs at most one action per `interval`.
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
  ///     default (the actions that ticks run then run on its private queue), or a
  ///     ``FakePeriodicTaskLauncher`` in tests.
  public init(
    interval: Duration,
    launcher: any PeriodicTaskLauncher = DefaultPeriodicTaskLauncher()
  ) {
    guard interval > .zero else {
      fatalError(
        "RateLimiter(interval:launcher:): interval must be positive, got \(interval)")
    }
    self.interval = interval
    core = LimiterCore(interval: interval, launcher: launcher)
  }

  /// Runs `action` at once when the limiter is quiescent; otherwise keeps it, in place of any
  /// kept action, for the next tick.
  ///
  /// When quiescent, `action` runs on the calling thread before `execute` returns (or, if an
  /// action started earlier is still running on another thread, right after it returns, on
  /// that thread).
  ///
  /// ```swift
  /// limiter.execute { print(1) }    // prints 1 now
  /// limiter.execute { print(2) }    // kept
  /// limiter.execute { print(3) }    // kept instead of 2: prints 3 at the next tick
  /// ```
  ///
  /// - Parameter action: The work to rate-limit.
  public func execute(_ action: @escaping @Sendable () -> Void) {
    core.execute(action)
  }

  /// Drops the kept action and makes the limiter quiescent, so the next ``execute(_:)`` runs
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
  /// The limiter stays active, so an action that arrives next still waits for a tick. If
  /// another action is running (on another thread, or the caller itself when called from
  /// inside an action), the kept action runs right after it returns, on that thread.
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
}
