/// Something that runs a task periodically while it is active: a task that sleeps on a clock
/// (``ClockPeriodicTaskLauncher``), a dispatch timer (``DefaultPeriodicTaskLauncher``), or a
/// fake that tests fire by hand (``FakePeriodicTaskLauncher``).
///
/// ``RateLimiter`` and ``Debouncer`` take a launcher so that tests can replace real time with
/// explicit ticks:
///
/// ```swift
/// let launcher: any PeriodicTaskLauncher = DefaultPeriodicTaskLauncher()
/// launcher.every(.seconds(1)) { print("tick") }
/// launcher.start()          // "tick" once a second, from one second after this call
/// launcher.isActive         // true
/// launcher.stop()           // no tick starts after this returns
/// ```
///
/// Every conforming type keeps these rules, which ``RateLimiter`` and ``Debouncer`` rely on:
///
/// - ``every(_:launch:)`` sets the interval and replaces the task, active or not. An interval
///   that is not positive is a programmer error and stops the program.
/// - ``start()`` makes the launcher active, also before ``every(_:launch:)``: it then ticks
///   once it has an interval. The first tick comes one interval after `start()`, so stopping
///   and starting again restarts the count. Calling `start()` while active changes nothing.
/// - ``stop()`` makes it inactive: no tick starts after `stop()` returns (one already running
///   on another thread may finish). Calling it while inactive changes nothing.
/// - All of them are safe from any thread, including from inside the task, and never run the
///   task themselves.
///
/// ``RateLimiter`` and ``Debouncer`` call their launcher with no lock of theirs held, one call
/// at a time, in the order of their decisions, so a launcher of your own may call back into
/// the limiter from any of these methods.
public protocol PeriodicTaskLauncher: AnyObject, Sendable {
  /// Sets the interval between ticks and the task each tick runs, replacing any earlier task.
  ///
  /// An interval that is not positive is a programmer error and stops the program with a
  /// message naming the value. Calling it while active replaces the task from the next tick.
  ///
  /// ```swift
  /// launcher.every(.milliseconds(100)) { refresh() }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The time between two ticks; must be positive.
  ///   - task: What each tick runs.
  func every(_ interval: Duration, launch task: @escaping @Sendable () -> Void)

  /// Whether the launcher is between a ``start()`` and a ``stop()``.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.isActive         // true
  /// ```
  var isActive: Bool { get }

  /// Makes the launcher active: it ticks every interval, the first tick one interval from now.
  ///
  /// Changes nothing while already active. Before ``every(_:launch:)`` the launcher is active
  /// but has nothing to run; it starts ticking once it gets an interval.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.start()          // no effect: still one tick per interval
  /// ```
  func start()

  /// Makes the launcher inactive: no tick starts after this returns.
  ///
  /// Changes nothing while already inactive. Safe to call from inside the task.
  ///
  /// ```swift
  /// launcher.stop()
  /// launcher.isActive         // false
  /// ```
  func stop()
}
