import Dispatch
import TinyInternals

/// A clock for the tests of blocks that cannot use TinyEnvironment's `ManualClock`: time moves
/// only in ``advance(to:)`` and ``advance(by:)``, which resume the sleepers they pass, in
/// deadline order, with ``now`` at each one's deadline. It does not wait for the work it wakes:
/// a test waits for that work's effects with a gate or a waiter, and for a task to sleep with
/// ``waitForSleepers(_:)``. A sleep until an instant that is not after ``now`` returns at once;
/// a cancelled sleep throws `CancellationError` and leaves the clock.
public final class StepClock: Clock, Sendable {
  /// An instant of the clock: the time since it was made.
  public struct Instant: InstantProtocol {
    /// The time since the clock was made.
    public var offset: Duration

    /// The instant `offset` after the clock was made.
    public init(offset: Duration) { self.offset = offset }

    /// The instant `duration` after this one.
    public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    /// The time from this instant to `other`.
    public func duration(to other: Instant) -> Duration { other.offset - offset }
    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    let id: Int
    let deadline: Instant
    let wake: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Sleeper] = []
    var nextID = 0
    /// Tasks in `waitForSleepers`, with the count each waits for.
    var arrivals: [(count: Int, done: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Locked(State())
  /// A hold on the next read of ``now``, set by ``holdNextRead(reached:release:)``.
  private let hold = Locked<(reached: Gate, release: Gate)?>(nil)

  /// Creates a clock at offset zero.
  public init() {}

  /// Makes the next read of ``now`` open `reached` and block until `release` opens: a test
  /// then acts while the code under test is at that read.
  public func holdNextRead(reached: Gate, release: Gate) {
    hold.withLock { $0 = (reached, release) }
  }

  /// The current instant, moved only by the `advance` methods.
  public var now: Instant {
    if let (reached, release) = hold.withLock({ $0.take() }) {
      reached.open()
      release.wait()
    }
    return state.withLock { $0.now }
  }
  /// Zero: deadlines are kept exactly.
  public var minimumResolution: Duration { .zero }

  /// The number of sleeps waiting for the clock.
  public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The number of sleeps started on the clock, ended or not.
  public var sleepCount: Int { state.withLock { $0.nextID } }

  // timing: the clock's own sleep, in virtual time that only the test moves
  /// Suspends until the test moves the clock to `deadline` or past it; throws
  /// `CancellationError` when the task is cancelled. `tolerance` is ignored.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { wake in
        let (due, arrived) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
          guard deadline > state.now, !Task.isCancelled else { return (true, []) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: wake))
          let count = state.sleepers.count
          defer { state.arrivals.removeAll { $0.count <= count } }
          return (false, state.arrivals.filter { $0.count <= count }.map(\.done))
        }
        if due { Task.isCancelled ? wake.resume(throwing: CancellationError()) : wake.resume() }
        for waiter in arrived { waiter.resume() }
      }
    } onCancel: {
      let cancelled = state.withLock { state in
        state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0).wake }
      }
      cancelled?.resume(throwing: CancellationError())
    }
  }

  /// Returns once at least `count` tasks sleep on the clock; stops the test process after
  /// ``helperTimeout``.
  public func waitForSleepers(_ count: Int = 1) async {
    let finished = Gate()
    // bounded: this timer is the bound
    DispatchQueue.global().asyncAfter(deadline: .now() + helperTimeout.seconds) {
      if !finished.isOpen { fatalError("StepClock.waitForSleepers(\(count)): timed out") }
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let enough = state.withLock { state in
        if state.sleepers.count < count { state.arrivals.append((count, done)) }
        return state.sleepers.count >= count
      }
      if enough { done.resume() }
    }
    finished.open()
  }

  /// Moves time forward by `duration` (see ``advance(to:)``).
  public func advance(by duration: Duration) {
    advance(to: state.withLock { $0.now }.advanced(by: duration))
  }

  /// Moves time to `target`, resuming each sleeper whose deadline it passes, earliest first.
  public func advance(to target: Instant) {
    while let next = state.withLock({ state -> Sleeper? in
      let due = state.sleepers.indices.filter { state.sleepers[$0].deadline <= target }
      guard let first = due.min(by: { state.sleepers[$0].deadline < state.sleepers[$1].deadline })
      else {
        state.now = Swift.max(state.now, target)
        return nil
      }
      state.now = state.sleepers[first].deadline
      return state.sleepers.remove(at: first)
    }) {
      next.wake.resume()
    }
  }
}
