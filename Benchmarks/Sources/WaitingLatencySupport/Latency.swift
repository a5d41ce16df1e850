// What both wake-latency measurements share (the WaitingBenchmarks suite, off the main thread,
// and the WaitingMainThreadLatency program, on it): an instant handed from the finishing
// thread to the waiting one, the finish itself, the flag the polling waiter reads, and
// XCTest's expectation made sendable.

import Dispatch
import Foundation
import XCTest

/// The instant the finishing thread is about to signal, handed to the waiting thread.
public final class Stamp: @unchecked Sendable {  // safe: `instant` only under `lock`
  private let lock = NSLock()
  private var instant: ContinuousClock.Instant?

  public init() {}

  /// Records now as the instant of the finish.
  public func mark() {
    lock.withLock { instant = .now }
  }

  /// Microseconds from the mark to now.
  public func microsecondsSinceMark() -> Int {
    Int((ContinuousClock.now - lock.withLock { instant! }) / .microseconds(1))
  }
}

/// Finishes after a short pause on another thread, stamping the moment just before `finish`;
/// `delay` is in seconds.
public func finishSoon(
  after delay: Double = 0.002, _ finish: @escaping @Sendable () -> Void
) -> Stamp {
  let stamp = Stamp()
  DispatchQueue.global().asyncAfter(deadline: .now() + delay) {
    stamp.mark()
    finish()
  }
  return stamp
}

/// A flag that a polling waiter reads.
public final class Flag: @unchecked Sendable {  // safe: `raised` only under `lock`
  private let lock = NSLock()
  private var raised = false

  public init() {}

  /// Raises the flag.
  public func raise() { lock.withLock { raised = true } }

  /// Whether the flag is raised.
  public var isRaised: Bool { lock.withLock { raised } }
}

/// XCTest's expectation, handed to the finishing thread (`fulfill()` is thread-safe).
public struct SendableExpectation: @unchecked Sendable {  // safe: XCTestExpectation locks inside
  public let expectation: XCTestExpectation

  public init(_ expectation: XCTestExpectation) {
    self.expectation = expectation
  }
}
