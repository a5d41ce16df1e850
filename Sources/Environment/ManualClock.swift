import Foundation
import TinyInternals

/// A clock that stands still until a test moves it: the clock of ``World/mock``.
///
/// Code under test sleeps on it as on any clock (`try await Current.clock.sleep(for:)`); the
/// sleep ends when the test moves time past its deadline with ``advance(by:)``,
/// ``advance(to:)`` or ``run(maxSteps:)``. An hour of sleeping takes no time at all:
///
/// ```swift
/// let clock = ManualClock()
/// let nap = Task { try await clock.sleep(for: .seconds(3600)) }
/// await clock.waitForSleepers()       // the task has reached its sleep
/// await clock.advance(by: .seconds(3600))
/// try await nap.value                 // done, at once
/// ```
///
/// **What `advance` guarantees.** It wakes the sleepers whose deadline it passes one at a time,
/// in deadline order (sleepers with one deadline in the order they went to sleep), with ``now``
/// at each one's deadline. After waking one, it waits until that sleeper has *settled*, and only
/// then wakes the next one or returns:
///
/// - the woken task has run until it sleeps on this clock again, finishes, or waits for
///   something that has not happened yet (a continuation nothing has resumed, a real timer);
/// - so has the work it set off, and the work that work set off: tasks it started (`Task {}`,
///   `async let`, task-group children), tasks whose continuations it resumed (an `AsyncStream`
///   consumer it fed), an idle actor it called, however often any of them calls `Task.yield()`;
/// - so has the work it sent to the main actor, and the work that main-actor work set off off
///   the main actor: a `@MainActor` polling loop woken three times by one `advance` has polled
///   three times when it returns, whether `advance` is awaited from the main actor or not.
///
/// **What it cannot follow.** Here a test awaits the work's task, or checks after it:
///
/// - main-actor work that hands work straight to the main actor again (a `Task { @MainActor in }`
///   started on the main actor, then another): the woken step has run, the rest may be queued;
/// - a call to an actor busy with other work, to an actor with a custom executor, and a task
///   that prefers a task executor of its own: they run on their own time;
/// - a task that was running, not suspended, when `advance` began, such as a group's owner
///   between adding children and awaiting `next()`: it takes what it is owed when it gets there;
/// - a woken task that advances another clock: it goes on after that advance, unfollowed.
///
/// `advance` follows work to the main actor with rounds through the main queue. While the main
/// queue does not run (its thread is blocked, say, on a semaphore), `advance` stops waiting for
/// it after about a second, writes one line to standard error naming the woken work it could not
/// follow there, and returns; until the main queue runs again, later advances do not wait for
/// it. (No public hook tells when work goes to the main actor, so a blocked main queue costs
/// that second even to work that stays off it.) `advance` runs the work it settles one job at a
/// time: that work must not block its thread until another part of it has run (that wait would
/// never end).
///
/// **The runtime hook.** While it settles, and only then, `advance` installs the runtime's hook
/// for the global executor (the one swift-concurrency-extras' `withMainSerialExecutor` uses),
/// passes every job that is not the settle's to the hook that was there, and puts that hook back
/// exactly. A job enqueued from the main actor while clocks settle counts in each of their
/// settles (it may be any test's), so tests running in parallel may wait for each other's
/// main-actor work. A helper that saves the hook as a Bool, as `withMainSerialExecutor` does,
/// works before, after and around an `advance`; one that starts while another test's `advance`
/// settles takes the clock's hook for its own and leaves its own hook installed for good. Where
/// the runtime lacks the hook or task executors (Apple platforms before macOS 15, iOS 18, tvOS 18
/// and watchOS 11), `advance` guarantees less: each woken sleeper has resumed before the next
/// wakes, but may still be running when `advance` returns.
///
/// **Before advancing.** A task that was just started may not have reached its sleep yet; time
/// moved before it sleeps does not count for it. Wait for it with
/// ``waitForSleepers(_:timeout:)``.
///
/// **Edge cases.** A sleep in a cancelled task throws `CancellationError` at once, whatever its
/// deadline; a sleeper whose task is cancelled throws it at once and leaves the clock. Otherwise
/// a sleep until a deadline that is not after ``now`` returns at once. Moving time backwards is
/// a programmer error that stops the program.
/// `advance` may be called from several tasks; they take turns. Calling it from work that the
/// same clock's `advance` is settling would wait for itself, and stops the program.
public final class ManualClock: Clock, Sendable {
  /// One sleeping task.
  struct Sleeper: Sendable {
    let id: UInt64
    let deadline: Instant
    let continuation: CheckedContinuation<Wake, any Error>
  }

  /// How a sleeper's `sleep` ends.
  enum Wake: Sendable {
    /// Its deadline had passed already: nothing waits for it.
    case now
    /// An `advance` woke it and waits for it to settle.
    case settling(Settler)
  }

  /// What the lock guards.
  struct State: Sendable {
    var now = Instant()
    /// In the order they wake: by deadline, then by the order they went to sleep.
    var sleepers = SleeperQueue()
    var nextID: UInt64 = 0
    /// Sleeps that have started and not registered yet, and which of them were cancelled.
    var registering: Set<UInt64> = []
    var cancelledEarly: Set<UInt64> = []
    /// Tasks waiting in `waitForSleepers`.
    var arrivals: [(id: UInt64, count: Int, continuation: CheckedContinuation<Bool, Never>)] = []
  }

  let state = Locked(State())
  let settler = Settler(label: "TinyEnvironment.ManualClock")
  /// Held by the `advance` or `run` that is running; the others wait for it, oldest first.
  private let advancing = TaskTurn()

  /// Makes a clock at its instant zero, with no sleeper.
  public init() {}

  /// The current instant: zero when the clock is made, moved only by ``advance(by:)``,
  /// ``advance(to:)`` and ``run(maxSteps:)``.
  public var now: Instant {
    state.withLock { $0.now }
  }

  /// Zero: the clock keeps every deadline exactly.
  public var minimumResolution: Duration { .zero }

  /// How many tasks are sleeping on the clock.
  public var sleeperCount: Int {
    state.withLock { $0.sleepers.count }
  }

  /// Suspends until the test moves the clock to `deadline` or past it.
  ///
  /// Throws `CancellationError` at once when the task is cancelled, before or during the sleep;
  /// a cancelled sleeper leaves the clock. Otherwise returns at once when `deadline` is not after
  /// ``now``. `tolerance` is ignored: deadlines are kept exactly.
  ///
  /// - Parameters:
  ///   - deadline: The instant to sleep until.
  ///   - tolerance: Ignored.
  /// - Throws: `CancellationError` when the task is cancelled.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    let id = state.withLock { state -> UInt64? in
      guard deadline > state.now else { return nil }
      defer { state.nextID += 1 }
      state.registering.insert(state.nextID)
      return state.nextID
    }
    guard let id else { return }
    let wake = try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Wake, any Error>) in
        register(Sleeper(id: id, deadline: deadline, continuation: continuation))
      }
    } onCancel: {
      let cancelled = state.withLock { state -> CheckedContinuation<Wake, any Error>? in
        if let sleeper = state.sleepers.remove(id: id, deadline: deadline) {
          return sleeper.continuation
        }
        if state.registering.contains(id) {
          state.cancelledEarly.insert(id)
        }
        return nil
      }
      cancelled?.resume(throwing: CancellationError())
    }
    if case .settling(let settler) = wake {
      await Self.handOver(to: settler)
    }
  }

  /// Adds a sleeper, unless it was cancelled or its deadline passed while it was on its way.
  private func register(_ sleeper: Sleeper) {
    enum Outcome {
      case cancelled, due
      case sleeping([CheckedContinuation<Bool, Never>])
    }
    let outcome = state.withLock { state -> Outcome in
      state.registering.remove(sleeper.id)
      if state.cancelledEarly.remove(sleeper.id) != nil { return .cancelled }
      if sleeper.deadline <= state.now { return .due }
      state.sleepers.insert(sleeper)
      let count = state.sleepers.count
      let arrived = state.arrivals.filter { $0.count <= count }
      state.arrivals.removeAll { $0.count <= count }
      return .sleeping(arrived.map(\.continuation))
    }
    switch outcome {
    case .cancelled: sleeper.continuation.resume(throwing: CancellationError())
    case .due: sleeper.continuation.resume(returning: .now)
    case .sleeping(let arrived):
      // The test waiting for sleepers is not part of the settle that the sleeper may run in.
      Settler.unfollowed { for waiter in arrived { waiter.resume(returning: true) } }
    }
  }

  /// Called by a woken sleeper: makes sure the rest of its turn runs in the settle, so that
  /// `advance` knows when it is over, then ends its hold on the settle.
  private static func handOver(to settler: Settler) async {
    defer { settler.release() }
    // Normally the wake itself went to the settle. Only a sleeper woken before it had finished
    // suspending goes on where it is: its next job is then claimed, through a yield (a task that
    // prefers a task executor of its own never comes through the hook, so it is not tried).
    var attempts = 0
    while !settler.isCurrent, attempts < 10_000, Settler.isAvailable, !prefersTaskExecutor() {
      settler.claimNextEnqueue()
      await Task.yield()
      attempts += 1
    }
  }

  /// Whether the calling task runs on a task executor of its own, whose jobs never pass the hook.
  private static func prefersTaskExecutor() -> Bool {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return false }
    return withUnsafeCurrentTask { $0?.unownedTaskExecutor != nil }
  }

  /// Moves time forward by `duration`, waking and settling every sleeper whose deadline it
  /// passes, one at a time, in deadline order.
  ///
  /// See the type's documentation for what holds when it returns. A zero duration wakes
  /// nothing (no sleeper's deadline is the current instant).
  ///
  /// ```swift
  /// await clock.advance(by: .seconds(5))
  /// ```
  ///
  /// - Parameter duration: How far to move; a negative duration stops the program.
  public func advance(by duration: Duration) async {
    if duration < .zero {
      fatalError("ManualClock.advance(by:): \(duration) is negative; time only moves forward")
    }
    await takeTurn()
    let target = now.advanced(by: duration, in: "ManualClock.advance(by:)")
    await advanceHoldingTurn(to: target)
  }

  /// Moves time forward to `deadline`, waking and settling every sleeper whose deadline it
  /// passes, one at a time, in deadline order.
  ///
  /// - Parameter deadline: Where to move; an instant before ``now`` stops the program.
  public func advance(to deadline: Instant) async {
    await takeTurn()
    let current = now
    if deadline < current {
      advancing.end()
      fatalError(
        "ManualClock.advance(to:): \(deadline) is before now (\(current)); time only moves forward")
    }
    await advanceHoldingTurn(to: deadline)
  }

  /// Moves time from deadline to deadline until no task sleeps on the clock, settling each
  /// sleeper as `advance` does, and returns whether none is left.
  ///
  /// Work that sleeps again and again (a polling loop) never lets the clock run out of
  /// sleepers: after `maxSteps` wakes the clock stops and returns `false`.
  ///
  /// ```swift
  /// #expect(await clock.run())   // every sleep has ended
  /// ```
  ///
  /// - Parameter maxSteps: The most sleepers to wake; 1,000 by default. Zero or less wakes
  ///   none.
  /// - Returns: `true` when no task sleeps on the clock any more.
  public func run(maxSteps: Int = 1_000) async -> Bool {
    await takeTurn()
    defer { advancing.end() }
    await settleDue(upTo: nil, maxSteps: maxSteps)
    return sleeperCount == 0
  }

  /// Wakes and settles the sleepers up to `target`, then sets the time to `target`; ends the
  /// turn.
  private func advanceHoldingTurn(to target: Instant) async {
    defer { advancing.end() }
    await settleDue(upTo: target, maxSteps: .max)
    state.withLock { state in
      if state.now < target { state.now = target }
    }
  }

  /// Removes the first sleeper due at `limit` (any, for `nil`) and moves time to its deadline.
  private func popNext(upTo limit: Instant?) -> Sleeper? {
    state.withLock { state in
      guard let deadline = state.sleepers.nextDeadline, limit.map({ deadline <= $0 }) ?? true,
        let first = state.sleepers.removeNext()
      else { return nil }
      if state.now < deadline { state.now = deadline }
      return first
    }
  }

  /// Wakes the sleepers due at `limit` (any, for `nil`), at most `maxSteps` of them, one at a
  /// time, and returns once the last has settled.
  private func settleDue(upTo limit: Instant?, maxSteps: Int) async {
    settler.beginAdvance()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      settleNext(upTo: limit, stepsLeft: maxSteps, done: done)
    }
  }

  /// Wakes the next due sleeper and, once it has settled, the one after it, from where the
  /// settle ends (no trip back to the advancing task in between); then resumes `done`.
  private func settleNext(
    upTo limit: Instant?, stepsLeft: Int, done: CheckedContinuation<Void, Never>
  ) {
    guard stepsLeft > 0, let next = popNext(upTo: limit) else {
      return Settler.unfollowed { done.resume() }
    }
    settler.settle(
      waking: { [settler] in next.continuation.resume(returning: .settling(settler)) },
      wokenAt: next.deadline.offset
    ) {
      self.settleNext(upTo: limit, stepsLeft: stepsLeft - 1, done: done)
    }
  }

  /// Waits until no other `advance` or `run` of this clock is running.
  private func takeTurn() async {
    if settler.isCurrent {
      fatalError(
        "ManualClock.advance: called from work that this clock's advance is settling; it would "
          + "wait for itself. Advance the clock from the test, not from the code it wakes.")
    }
    await advancing.take()
  }
}

extension ManualClock: VirtualTimeClock {
  var elapsed: Duration { now.offset }
}

/// A clock whose time is virtual: a mock world's `date()` follows it.
protocol VirtualTimeClock: Sendable {
  /// The virtual time since the clock was made.
  var elapsed: Duration { get }
}
