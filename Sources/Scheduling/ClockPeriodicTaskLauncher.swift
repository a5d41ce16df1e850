import TinyInternals

/// A launcher that ticks on any clock: the world's clock in app code, a manual clock that the
/// test moves in tests.
///
/// Ticks come at `start + interval`, `start + 2 × interval`, … in the clock's own instants,
/// where `start` is the clock's `now` when the launcher started: a late tick does not delay the
/// next one, so the launcher never drifts from its grid. Both a concrete clock and an
/// `any Clock<Duration>` (such as `Current.clock`) can be passed.
///
/// ```swift
/// let launcher = ClockPeriodicTaskLauncher(clock: ContinuousClock())
/// launcher.every(.seconds(1)) { refresh() }
/// launcher.start()          // refresh() at 1 s, 2 s, 3 s, … after this call
/// launcher.stop()           // no tick starts after this returns
/// ```
///
/// - The ticks run in a task that the call that starts the grid makes (``start()``, or
///   `every(_:launch:)` when it sets a new interval while active), so the task reads that
///   code's task-local values, such as the world of a `withWorld` scope.
/// - The task may be asynchronous (`every(interval) { await refresh() }`). Ticks never overlap,
///   asynchronous ones included, not even across a ``stop()`` and a ``start()`` or a new
///   interval: a tick that comes while another runs waits for it to return, and the deadlines
///   that pass while it waits merge into it.
/// - When a tick's task runs past the next deadlines (or the clock jumps past them), those
///   deadlines are not made up: the launcher ticks once for all of them, at once (right after
///   the task returns), and carries on with the next deadline of its grid, as a dispatch timer
///   does. Missed deadlines are counted in whole intervals, exactly: one jump is one tick.
/// - ``start()`` and ``stop()`` are idempotent and safe from any thread and from inside the
///   task. ``stop()`` cancels the sleeping task, so a manual clock is left with no sleeper; a
///   tick that runs finishes, uncancelled. Releasing an active launcher stops it (once a tick
///   that runs has returned): its task refers to the launcher weakly.
/// - An interval that is not positive is a programmer error. Deadlines must stay within the
///   clock's range of instants (a manual clock's or the continuous clock's are many thousands
///   of years).
public final class ClockPeriodicTaskLauncher: PeriodicTaskLauncher, Sendable {
  private let core: LauncherCore

  /// Creates an inactive launcher that ticks on `clock`.
  ///
  /// ```swift
  /// let ticking = ClockPeriodicTaskLauncher(clock: Current.clock)   // the world's clock
  /// ```
  ///
  /// - Parameter clock: The clock whose instants the grid is made of: a concrete clock, or an
  ///   `any Clock<Duration>` such as `Current.clock` or one a type stores.
  public init(clock: any Clock<Duration>) {
    // An `any Clock<Duration>` parameter, not a generic one: a stored `clock` passed by its bare
    // name in a file that imports Foundation also names Glibc's `clock()`, and the generic form
    // then fails to open the existential. Passing it on opens it.
    core = LauncherCore(name: "ClockPeriodicTaskLauncher", startGrid: Self.grids(on: clock))
  }

  /// Starts each grid as a task that sleeps to each deadline in turn and ticks there.
  private static func grids(on clock: some Clock<Duration>) -> LauncherCore.StartGrid {
    { interval, tick in
      let start = clock.now
      let ticking = startTask {
        var deadline = start
        while true {
          deadline = deadline.advanced(by: interval)
          do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
          let ticked = await tick.runInTurn {
            // The deadlines that passed meanwhile, asleep or waiting for another grid's tick to
            // end, counted in whole intervals, merge into this tick.
            let missed = deadline.duration(to: clock.now).wholeMultiples(of: interval)
            if missed > 0 { deadline = deadline.advanced(by: interval * missed) }
          }
          guard ticked else { return }
        }
      }
      return { ticking.cancel() }
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
  ///   - task: What each tick runs, in the launcher's ticking task.
  public func every(_ interval: Duration, launch task: @escaping @Sendable () -> Void) {
    core.every(interval, launch: .sync(Work(run: task)))
  }

  /// Sets the interval and replaces the task with an asynchronous one; while active, a new
  /// interval restarts the grid from now.
  ///
  /// Ticks never overlap: the launcher awaits each tick's task before the next tick. A deadline
  /// that passes while the task still runs is not lost: the next tick runs once, right after
  /// the task returns, for all the deadlines that passed (as when the clock jumps), and the grid
  /// goes on with its next deadline. The task runs in a task of its own, which inherits the
  /// task-local values of the code that started the grid; ``stop()`` does not cancel a tick that
  /// runs, and the next tick, after a ``start()`` or a new interval, waits for it to return. With
  /// the same interval as before, only the task changes and the grid stays. An interval that is
  /// not positive stops the program with a message naming it.
  ///
  /// ```swift
  /// let refresher = ClockPeriodicTaskLauncher(clock: Current.clock)
  /// refresher.every(.seconds(30)) { await refresh() }   // one refresh at a time
  /// refresher.start()
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The time between two ticks; must be positive.
  ///   - task: What each tick runs and awaits.
  public func every(_ interval: Duration, launch task: @escaping @Sendable () async -> Void) {
    core.every(interval, launch: .async(task))
  }

  /// Whether the launcher is between a ``start()`` and a ``stop()``.
  ///
  /// ```swift
  /// ClockPeriodicTaskLauncher(clock: ContinuousClock()).isActive    // false
  /// ```
  public var isActive: Bool {
    core.isActive
  }

  /// Starts ticking, the first tick one interval from the clock's now; changes nothing while
  /// active.
  ///
  /// Before a call of `every(_:launch:)` the launcher becomes active and starts ticking once it
  /// gets an interval.
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
  /// A tick already running finishes. Calling it from inside the task is fine. The ticking
  /// task is cancelled, so it leaves the clock.
  ///
  /// ```swift
  /// launcher.stop()
  /// launcher.isActive         // false
  /// ```
  public func stop() {
    core.stop()
  }
}
