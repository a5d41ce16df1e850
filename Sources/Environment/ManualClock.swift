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
/// in deadline order (sleepers with the same deadline in the order they went to sleep), with
/// ``now`` at each one's deadline. After waking one, it waits until that sleeper has
/// *settled*, and only then wakes the next one or returns:
///
/// - the woken task has run until it sleeps on this clock again, finishes, or waits for
///   something else (an actor, a continuation that nothing has resumed yet, a real timer);
/// - so has every piece of work it set off on the way that runs on the global concurrent
///   executor: tasks it started (`Task { }`, `async let`, task-group children), and tasks whose
///   continuations it resumed. A task-group child that sleeps on this clock is a sleeper like
///   any other; one that waits for something else is left waiting.
///
/// Work that continues on the main actor or another actor runs there after the settle, in that
/// actor's order: a test that then reads the main actor's state (from a `@MainActor` test, or
/// with `await`) runs after it. So a polling loop woken three times by one `advance` has polled
/// three times when `advance` returns, a debounced search has searched, and a retry loop has
/// retried.
///
/// Settling relies on the runtime's hook for the global executor (the one
/// swift-concurrency-extras' `withMainSerialExecutor` uses). Where the runtime does not offer
/// it (Apple platforms before macOS 15, iOS 18, tvOS 18 and watchOS 11), or for a task that
/// prefers its own task executor, `advance` guarantees less: each woken sleeper has resumed
/// (its `sleep` call has returned) before the next wakes, but may still be running when
/// `advance` returns.
///
/// **Work that was already running is not settled.** A settle follows the woken task and what
/// it sets off; it cannot wait for a task that was running (not suspended) when `advance`
/// began. The usual case is the task that owns a task group, between adding its children and
/// awaiting `next()`: if a child the clock wakes finishes in that window, the owner takes the
/// result on its own thread when it gets there, possibly after `advance` has returned. (With
/// four threads spinning on two cores, a timeout test hit that window about once in 3,000
/// runs.) So check what such an owner does after awaiting its task's value or result, not
/// right after `advance`.
///
/// **Blocking a woken task's thread.** While `advance` settles a woken task, the tasks it starts
/// and resumes run on the clock's serial queue, after it. So a woken task must not block its
/// thread until one of them has run (waiting on a semaphore or a lock that it releases): that
/// wait never ends, and `advance` with it. Await the work instead, as Swift concurrency asks of
/// every task.
///
/// **Before advancing.** A task that was just started may not have reached its sleep yet;
/// time moved before it sleeps does not count for it. Wait for it with
/// ``waitForSleepers(_:timeout:)``.
///
/// **Edge cases.** A sleep until a deadline that is not after ``now`` returns at once. A
/// cancelled sleeper throws `CancellationError` at once and leaves the clock (a sleep started
/// in a cancelled task throws at once too). Moving time backwards is a programmer error that
/// stops the program. `advance` may be called from several tasks; they take turns. Calling it
/// from work that the same clock's `advance` is settling would wait for itself, and stops the
/// program.
public final class ManualClock: Clock, Sendable {
  /// A point in the clock's time: how long after the clock was made.
  public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    /// The time since the clock was made.
    public let offset: Duration

    /// The instant `offset` after the clock was made.
    public init(offset: Duration = .zero) {
      self.offset = offset
    }

    /// The instant `duration` later (earlier, for a negative duration).
    ///
    /// An instant more than about 1.66e20 seconds (5e12 years) from the clock's start is out
    /// of the clock's range: asking for one stops the program with a message naming the values.
    public func advanced(by duration: Duration) -> Instant {
      advanced(by: duration, in: "ManualClock.Instant.advanced(by:)")
    }

    /// ``advanced(by:)``, stopping the program with a message naming `api` when the result is
    /// out of range (`Duration` itself traps a little further out, with no message).
    func advanced(by duration: Duration, in api: String) -> Instant {
      let limit = Duration.seconds(Int64.max) * 18  // about 1.66e20 s
      let fits = duration >= .zero ? offset <= limit - duration : offset >= .zero - limit - duration
      guard fits else {
        fatalError(
          "\(api): \(self) plus \(duration) is out of the clock's range (about ±1.66e20 seconds)")
      }
      return Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`; negative when `other` is earlier.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset with a sign: `+90.0 seconds`.
    public var description: String {
      "+\(offset)"
    }
  }

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
    /// Whether an `advance` is running, and the ones waiting for their turn.
    var isAdvancing = false
    var turns: [CheckedContinuation<Void, Never>] = []
  }

  let state = Locked(State())
  let settler = Settler(label: "TinyEnvironment.ManualClock")

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
  /// Returns at once when `deadline` is not after ``now``. Throws `CancellationError` at once
  /// when the task is cancelled, before or during the sleep; a cancelled sleeper leaves the
  /// clock. `tolerance` is ignored: deadlines are kept exactly.
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
    case .sleeping(let arrived): for waiter in arrived { waiter.resume(returning: true) }
    }
  }

  /// Called by a woken sleeper: moves the rest of its turn onto the settler, so that `advance`
  /// knows when it is over.
  private static func handOver(to settler: Settler) async {
    defer { settler.release() }
    guard Settler.isAvailable,
      let task = withUnsafeCurrentTask(body: { current -> UInt? in
        guard let current, !prefersTaskExecutor(current) else { return nil }
        return unsafeBitCast(current, to: UInt.self)
      })
    else { return }
    // The task's next job goes to the settler, through the hook. A yield that is over before
    // the task has suspended lets the task go on where it is, without a job: then try again.
    // On a loaded machine that happens many times in a row (hundreds, with four threads
    // spinning on two cores), so the bound is far above it; giving up early would let the
    // task run on while `advance` goes on. A task that prefers a task executor of its own never
    // comes through the hook, so it is not tried at all.
    var attempts = 0
    repeat {
      Settler.claim(task: task, for: settler)
      await Task.yield()
      _ = Settler.unclaim(task: task)
      attempts += 1
    } while !settler.isCurrent && attempts < 10_000
  }

  /// Whether `task` runs on a task executor of its own, whose jobs never pass the hook.
  private static func prefersTaskExecutor(_ task: UnsafeCurrentTask) -> Bool {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return false }
    return task.unownedTaskExecutor != nil
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
      endTurn()
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
    defer { endTurn() }
    var steps = 0
    while steps < maxSteps, let next = popNext(upTo: nil) {
      await settle(next)
      steps += 1
    }
    return sleeperCount == 0
  }

  /// Waits until at least `count` tasks sleep on the clock, or `timeout` passes in real time.
  ///
  /// Use it before advancing, so that a task that was just started has reached its sleep:
  ///
  /// ```swift
  /// let poller = Task { await poll() }
  /// await clock.waitForSleepers()
  /// ```
  ///
  /// - Parameters:
  ///   - count: How many sleepers to wait for; 1 by default. Zero or less returns at once.
  ///   - timeout: The longest to wait, in real time; 60 seconds by default.
  /// - Returns: `true` once the clock has `count` sleepers; `false` at the timeout, or at once
  ///   when the task is cancelled (before or during the wait) with fewer sleepers.
  @discardableResult
  public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(60)) async -> Bool {
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        // What to return at once, or `nil` once the wait is registered.
        let answer = state.withLock { state -> Bool? in
          guard state.sleepers.count < count else { return true }
          // Checked under the lock that the cancellation handler takes: a cancellation either
          // comes before this (and is seen here) or finds the arrival below.
          if Task.isCancelled { return false }
          state.arrivals.append((id, count, continuation))
          return nil
        }
        if let answer { return continuation.resume(returning: answer) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
          self?.endWaitForSleepers(id)
        }
      }
    } onCancel: {
      endWaitForSleepers(id)
    }
  }

  /// Ends the `waitForSleepers` call `id` with `false`, unless it has ended.
  private func endWaitForSleepers(_ id: UInt64) {
    let ended = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let index = state.arrivals.firstIndex(where: { $0.id == id }) else { return nil }
      return state.arrivals.remove(at: index).continuation
    }
    ended?.resume(returning: false)
  }

  /// Wakes and settles the sleepers up to `target`, then sets the time to `target`; ends the
  /// turn.
  private func advanceHoldingTurn(to target: Instant) async {
    defer { endTurn() }
    while let next = popNext(upTo: target) {
      await settle(next)
    }
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

  /// Wakes `sleeper` and returns once it has settled.
  private func settle(_ sleeper: Sleeper) async {
    await withCheckedContinuation { (settled: CheckedContinuation<Void, Never>) in
      Settler.activate(settler)
      settler.begin { [settler] in
        Settler.deactivate(settler)
        settled.resume()
      }
      sleeper.continuation.resume(returning: .settling(settler))
    }
  }

  /// Waits until no other `advance` or `run` of this clock is running.
  private func takeTurn() async {
    if settler.isCurrent {
      fatalError(
        "ManualClock.advance: called from work that this clock's advance is settling; it would "
          + "wait for itself. Advance the clock from the test, not from the code it wakes.")
    }
    await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
      let mine = state.withLock { state -> Bool in
        guard state.isAdvancing else {
          state.isAdvancing = true
          return true
        }
        state.turns.append(turn)
        return false
      }
      if mine { turn.resume() }
    }
  }

  /// Hands the turn to the next waiting `advance`, if any.
  private func endTurn() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.turns.isEmpty else {
        state.isAdvancing = false
        return nil
      }
      return state.turns.removeFirst()
    }
    next?.resume()
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
