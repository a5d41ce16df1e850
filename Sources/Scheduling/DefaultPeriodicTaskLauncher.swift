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
  /// The interval, the task, whether it is active, and the running timer.
  private struct State {
    var interval: Duration?
    var task: Work?
    var isActive = false
    /// The timer of the current active period, or `nil`; always resumed exactly once.
    var timer: Timer?
    /// Counts timers, so that a tick of a replaced timer that was already on its way is dropped.
    var generation: UInt64 = 0
  }

  /// A timer source, to keep in the locked state.
  private struct Timer: @unchecked Sendable {
    // @unchecked: Dispatch sources may be used from any thread; this one is only cancelled.
    let source: DispatchSourceTimer
  }

  /// The queue the task runs on.
  private let queue: DispatchQueue
  private let state = Locked(State())

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
    self.queue = queue ?? DispatchQueue(label: "TinyScheduling.DefaultPeriodicTaskLauncher")
  }

  deinit {
    // The timer is active (never suspended), so cancelling and releasing it is safe. The task
    // may hold another launcher, whose task holds another, and so on: released through the
    // trampoline, with no lock held, such a chain is freed one launcher after another.
    let (timer, task) = state.withLock { ($0.timer.take(), $0.task.take()) }
    timer?.source.cancel()
    Trampoline.release(consume task)
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
    guard interval > .zero else {
      fatalError(
        "DefaultPeriodicTaskLauncher.every(_:launch:): interval must be positive, got \(interval)")
    }
    let replaced = state.withLock { state -> (task: Work?, timer: Timer?) in
      let old = state.task.take()
      state.task = Work(run: task)
      guard state.interval != interval else { return (old, nil) }
      state.interval = interval
      return (old, state.isActive ? startTimer(&state) : nil)
    }
    // After the lock: the old task is the user's closure, and its release may run a `deinit`
    // that calls this launcher.
    replaced.timer?.source.cancel()
    withExtendedLifetime(replaced) {}
  }

  /// Whether the launcher is between a ``start()`` and a ``stop()``.
  ///
  /// ```swift
  /// DefaultPeriodicTaskLauncher().isActive    // false
  /// ```
  public var isActive: Bool {
    state.withLock { $0.isActive }
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
    let replaced = state.withLock { state -> Timer? in
      guard !state.isActive else { return nil }
      state.isActive = true
      return state.interval != nil ? startTimer(&state) : nil
    }
    replaced?.source.cancel()
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
    let stopped = state.withLock { state -> Timer? in
      guard state.isActive else { return nil }
      state.isActive = false
      return state.timer.take()
    }
    // A tick of that timer that comes now finds the launcher inactive and runs nothing.
    stopped?.source.cancel()
  }

  /// How many timers the launcher has started, each one a new grid: lets the tests tell a grid
  /// that was kept from one that restarted, which no clock reading can do on a busy machine.
  var timersStarted: UInt64 {
    state.withLock { $0.generation }
  }

  /// Replaces any timer with a new one whose grid starts now, and returns the replaced one, for
  /// the caller to cancel after the lock (its ticks no longer match the generation).
  ///
  /// Each timer is resumed once, right here, and only ever cancelled afterwards: it is never
  /// suspended, so it can neither be over-resumed nor released while suspended, the two
  /// misuses that make Dispatch trap.
  private func startTimer(_ state: inout State) -> Timer? {
    guard let interval = state.interval else { return nil }
    let replaced = state.timer.take()
    state.generation &+= 1
    let generation = state.generation
    let nanoseconds = interval.positiveNanoseconds
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.setEventHandler { [weak self] in self?.tick(of: generation) }
    timer.schedule(
      deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds),
      leeway: .nanoseconds(0))
    timer.resume()
    state.timer = Timer(source: timer)
    return replaced
  }

  /// Runs the task, unless the launcher stopped or replaced the timer since this tick was due.
  private func tick(of generation: UInt64) {
    let task = state.withLock { state in
      state.isActive && state.generation == generation ? state.task : nil
    }
    task?.run()
  }
}
