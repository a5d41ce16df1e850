import TinyInternals

/// A launcher for tests that ticks only when the test calls ``fire()``: time becomes a list of
/// explicit steps.
///
/// It follows every rule of ``PeriodicTaskLauncher`` except that it has no clock: nothing
/// happens between calls, and ``fire()`` runs the task synchronously, on the caller's thread,
/// with no sleep and no yield. It also records how it was used.
///
/// ```swift
/// let launcher = FakePeriodicTaskLauncher()
/// let limiter = RateLimiter(interval: .milliseconds(250), launcher: launcher)
/// limiter.execute { print("a") }        // prints "a" at once; the launcher starts
/// limiter.execute { print("b") }        // kept
/// limiter.execute { print("c") }        // replaces "b"
/// launcher.fire()                       // prints "c"; true
/// launcher.fire()                       // nothing was kept: the limiter stops it; true
/// launcher.fire()                       // false: inactive
/// launcher.interval                     // .milliseconds(250)
/// (launcher.startCount, launcher.stopCount)    // (1, 1)
/// ```
///
/// It is safe from any thread; concurrent ``fire()`` calls may run the task concurrently,
/// as a real timer on a concurrent queue could. A task that ``every(_:launch:)`` replaces is
/// released after the launcher's lock, so the `deinit` of what it captured may call the
/// launcher.
public final class FakePeriodicTaskLauncher: PeriodicTaskLauncher, Sendable {
  /// The interval, the task, whether it is active, and the call counts.
  private struct State {
    var interval: Duration?
    var task: Work?
    var isActive = false
    var startCount = 0
    var stopCount = 0
  }

  private let state = Locked(State())

  /// Creates an inactive launcher with no interval and no task.
  ///
  /// ```swift
  /// FakePeriodicTaskLauncher().isActive    // false
  /// ```
  public init() {}

  deinit {
    // The task may hold another launcher, whose task holds another, and so on: released
    // through the trampoline, with no lock held, such a chain is freed one launcher after
    // another.
    Trampoline.release(state.withLock { $0.task.take() })
  }

  /// Records the interval and replaces the task.
  ///
  /// An interval that is not positive stops the program with a message naming it, as
  /// ``DefaultPeriodicTaskLauncher`` does, so a test catches it.
  ///
  /// ```swift
  /// launcher.every(.seconds(2)) { print("tick") }
  /// launcher.interval                     // .seconds(2)
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The interval a real launcher would tick at; must be positive.
  ///   - task: What ``fire()`` runs.
  public func every(_ interval: Duration, launch task: @escaping @Sendable () -> Void) {
    guard interval > .zero else {
      fatalError(
        "FakePeriodicTaskLauncher.every(_:launch:): interval must be positive, got \(interval)")
    }
    let replaced = state.withLock { state in
      state.interval = interval
      defer { state.task = Work(run: task) }
      return state.task.take()
    }
    // After the lock: releasing the user's old task may run a `deinit` that calls this
    // launcher.
    withExtendedLifetime(replaced) {}
  }

  /// Whether the launcher is between a ``start()`` and a ``stop()``.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.isActive                     // true
  /// ```
  public var isActive: Bool {
    state.withLock { $0.isActive }
  }

  /// The interval of the latest ``every(_:launch:)`` call, or `nil` before the first.
  ///
  /// ```swift
  /// FakePeriodicTaskLauncher().interval   // nil
  /// ```
  public var interval: Duration? {
    state.withLock { $0.interval }
  }

  /// How many times ``start()`` was called, including calls that changed nothing.
  ///
  /// ```swift
  /// launcher.start(); launcher.start()
  /// launcher.startCount                   // 2
  /// ```
  public var startCount: Int {
    state.withLock { $0.startCount }
  }

  /// How many times ``stop()`` was called, including calls that changed nothing.
  ///
  /// ```swift
  /// launcher.stop()
  /// launcher.stopCount                    // 1
  /// ```
  public var stopCount: Int {
    state.withLock { $0.stopCount }
  }

  /// Makes the launcher active and counts the call.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.isActive                     // true
  /// ```
  public func start() {
    state.withLock { state in
      state.startCount += 1
      state.isActive = true
    }
  }

  /// Makes the launcher inactive and counts the call.
  ///
  /// ```swift
  /// launcher.stop()
  /// launcher.fire()                       // false
  /// ```
  public func stop() {
    state.withLock { state in
      state.stopCount += 1
      state.isActive = false
    }
  }

  /// Ticks once: runs the task on the caller's thread if the launcher is active and has a
  /// task, and says whether it ran.
  ///
  /// The task runs without the launcher's lock, so it may call ``stop()``, ``start()`` or
  /// even `fire()` again. Returns `false`, running nothing, when inactive or before
  /// ``every(_:launch:)``.
  ///
  /// ```swift
  /// launcher.every(.seconds(1)) { print("tick") }
  /// launcher.fire()                       // false: not started
  /// launcher.start()
  /// launcher.fire()                       // prints "tick"; true
  /// ```
  ///
  /// - Returns: Whether the task ran.
  /// - Complexity: O(1), plus the task; no allocation.
  @discardableResult
  public func fire() -> Bool {
    guard let task = state.withLock({ $0.isActive ? $0.task : nil }) else { return false }
    task.run()
    return true
  }

  /// Ticks up to `times` times in a row, stopping early once the launcher is inactive, and
  /// returns how many ticks ran the task.
  ///
  /// A count of zero or less fires nothing and returns 0.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.fire(times: 3)               // 3: ran the task three times
  /// launcher.stop()
  /// launcher.fire(times: 3)               // 0
  /// ```
  ///
  /// - Parameter times: The number of ticks to try.
  /// - Returns: The number of ticks that ran the task.
  /// - Complexity: O(`times`), plus the tasks.
  @discardableResult
  public func fire(times: Int) -> Int {
    var fired = 0
    while fired < times, fire() {
      fired += 1
    }
    return fired
  }
}
