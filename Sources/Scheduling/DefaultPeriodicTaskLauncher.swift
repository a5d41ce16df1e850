import Dispatch
import TinyInternals

/// A launcher that ticks on a grid of absolute deadlines, without drift and without a run
/// loop.
///
/// Ticks come at `start + interval`, `start + 2 × interval`, … measured from the moment it
/// was started: a late tick does not delay the next one, so after 1,000 ticks the launcher is
/// still on its grid (a loop that sleeps one interval after each tick drifts by its own
/// overhead every time). It is built on a `DispatchSourceTimer`, so it works wherever
/// Dispatch does — command-line tools, XCTest, Swift Testing, apps — with no run loop.
///
/// ```swift
/// let launcher = DefaultPeriodicTaskLauncher()
/// launcher.every(.milliseconds(10)) { sample() }
/// launcher.start()          // sample() at 10 ms, 20 ms, 30 ms, … after this call
/// launcher.stop()           // no tick starts after this returns
/// ```
///
/// - The task runs on the launcher's queue: a private serial queue, or the one passed to
///   ``init(queue:)``. Ticks of one launcher never overlap on a serial queue. On the main
///   queue the ticks run only while something drives it (an app's run loop, `dispatchMain()`).
/// - When the queue is busy, or the task takes longer than the interval, missed deadlines are
///   not made up: the launcher ticks once and carries on with the next deadline of its grid.
/// - Intervals are rounded down to whole nanoseconds (at least one); an interval that is not
///   positive is a programmer error.
/// - ``start()`` and ``stop()`` are idempotent and safe from any thread and from inside the
///   task; no order of calls crashes. Releasing an active launcher stops it.
/// - A task that ``every(_:launch:)`` replaces is released after the launcher's lock (or, if a
///   tick is running it, when that tick returns), so the `deinit` of what it captured may call
///   the launcher.
public final class DefaultPeriodicTaskLauncher: PeriodicTaskLauncher, Sendable {
  /// A timer source, to keep in a `@Sendable` closure.
  private struct Timer: @unchecked Sendable {
    // @unchecked: Dispatch sources may be used from any thread; this one is only cancelled.
    let source: DispatchSourceTimer
  }

  private let core: LauncherCore

  /// Creates an inactive launcher whose task runs on `queue`, or on a private serial queue.
  ///
  /// ```swift
  /// let onMain = DefaultPeriodicTaskLauncher(queue: .main)     // ticks on the main queue
  /// let own = DefaultPeriodicTaskLauncher()                    // ticks on its own queue
  /// ```
  ///
  /// - Parameter queue: The queue for the task; `nil` (the default) makes a private serial
  ///   queue. With a concurrent queue, a tick of a stopped period may still be running when a
  ///   tick of the next one starts.
  public init(queue: DispatchQueue? = nil) {
    let queue = queue ?? DispatchQueue(label: "TinyScheduling.DefaultPeriodicTaskLauncher")
    // Each grid is a new timer, resumed once, right here, and only ever cancelled afterwards:
    // it is never suspended, so it can neither be over-resumed nor released while suspended,
    // the two misuses that make Dispatch trap.
    core = LauncherCore(name: "DefaultPeriodicTaskLauncher") { interval, tick in
      let nanoseconds = interval.positiveNanoseconds
      let timer = Timer(source: DispatchSource.makeTimerSource(queue: queue))
      timer.source.setEventHandler { _ = tick.run() }
      timer.source.schedule(
        deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
        leeway: .nanoseconds(0))
      timer.source.resume()
      return { timer.source.cancel() }
    }
  }

  /// Sets the interval and replaces the task; while active, a new interval restarts the grid
  /// from now.
  ///
  /// With the same interval as before, only the task changes and the grid stays. An interval
  /// that is not positive stops the program with a message naming it.
  ///
  /// ```swift
  /// launcher.every(.seconds(1)) { print("a") }
  /// launcher.start()
  /// launcher.every(.seconds(1)) { print("b") }    // "b" from the next tick, same grid
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The time between two ticks; must be positive.
  ///   - task: What each tick runs, on the launcher's queue.
  public func every(_ interval: Duration, launch task: @escaping @Sendable () -> Void) {
    core.every(interval, launch: .sync(Work(run: task)))
  }

  /// Whether the launcher is between a ``start()`` and a ``stop()``.
  ///
  /// ```swift
  /// DefaultPeriodicTaskLauncher().isActive    // false
  /// ```
  public var isActive: Bool {
    core.isActive
  }

  /// Starts ticking, the first tick one interval from now; changes nothing while active.
  ///
  /// Before ``every(_:launch:)`` the launcher becomes active and starts ticking once it gets
  /// an interval.
  ///
  /// ```swift
  /// launcher.start()
  /// launcher.isActive         // true
  /// ```
  public func start() {
    core.start()
  }

  /// Stops ticking: no tick starts after this returns; changes nothing while inactive.
  ///
  /// A tick already running on the launcher's queue finishes. Calling it from inside the task
  /// is fine.
  ///
  /// ```swift
  /// launcher.stop()
  /// launcher.isActive         // false
  /// ```
  public func stop() {
    core.stop()
  }

  /// How many timers the launcher has started, each one a new grid.
  var timersStarted: UInt64 {
    core.gridsStarted
  }
}
