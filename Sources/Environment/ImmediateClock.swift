import TinyInternals

/// A clock whose sleeps return at once, counting the time they would have taken: for tests
/// where only the result matters.
///
/// Each sleep moves ``now`` to its deadline (never backwards) and returns without suspending,
/// so a retry loop with a minute of backoff runs in no time, and ``now`` tells how much virtual
/// time went by. In a world made from ``World/mock``, `date()` follows it too.
///
/// ```swift
/// let clock = ImmediateClock()
/// try await clock.sleep(for: .seconds(90))
/// clock.now.offset        // → 90.0 seconds
/// ```
///
/// A cancelled task's sleep throws `CancellationError` at once, and does not move time. A sleep
/// until an instant that is not after ``now`` returns at once, moving nothing. Sleeps from
/// several tasks each move time to their own deadline: time is the latest of them.
///
/// To see code wait, in order, and check it between steps, use ``ManualClock`` instead.
public final class ImmediateClock: Clock, Sendable {
  /// A point in the clock's time: how long after the clock was made.
  public typealias Instant = ManualClock.Instant

  private let current = Locked(Instant())

  /// Makes a clock at its instant zero.
  public init() {}

  /// The current instant: zero when the clock is made, then the latest deadline slept until.
  public var now: Instant {
    current.withLock { $0 }
  }

  /// Zero: the clock keeps every deadline exactly.
  public var minimumResolution: Duration { .zero }

  /// Moves ``now`` to `deadline`, unless it is there already, and returns at once.
  ///
  /// - Parameters:
  ///   - deadline: The instant to sleep until.
  ///   - tolerance: Ignored.
  /// - Throws: `CancellationError` when the task is cancelled; time does not move then.
  public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    try Task.checkCancellation()
    current.withLock { now in
      if now < deadline { now = deadline }
    }
  }
}

extension ImmediateClock: VirtualTimeClock {
  var elapsed: Duration { now.offset }
}
