import Dispatch
import Testing
import XCTest

/// How long a test case may run before ``Watchdog`` stops the test process: half as long again
/// as ``suiteTimeLimit``, so that Swift Testing's own report of a test past its limit comes
/// first whenever the test can still be stopped.
public let watchdogLimit: Duration = .seconds(runsSlowly ? 450 : 90)

/// Where the watchdogs' timers fire: a serial queue of its own gets a thread even when a hung
/// test keeps every thread of the global queues (and so of the cooperative pool) busy.
let watchdogQueue = DispatchQueue(label: "TinyTestSupport.watchdog")

/// Stops the test process, naming the test, when one of its cases is still running
/// ``watchdogLimit`` after it started.
///
/// `.timeLimit` reports a test that runs past its limit and cancels it, but code that never
/// suspends and never checks for cancellation (a loop that no longer ends) keeps running, and
/// the run hangs without a name. With this trait such a hang is a failure that names the test.
/// Every top-level suite carries it next to its `.timeLimit(suiteTimeLimit), .watchdog`.
public struct Watchdog: TestTrait, SuiteTrait, TestScoping {
  /// Applies to every test of the suite.
  public var isRecursive: Bool { true }

  /// One watch per test case: the suite itself and the test function as a whole get none.
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Watchdog? {
    testCase == nil ? nil : self
  }

  /// Runs the test case with a timer that stops the process if the case outlives the limit.
  public func provideScope(
    for test: Test, testCase: Test.Case?,
    performing function: @Sendable () async throws -> Void
  ) async throws {
    let name = "\(test.name) (\(test.sourceLocation.fileID):\(test.sourceLocation.line))"
    let timer = DispatchSource.makeTimerSource(queue: watchdogQueue)
    timer.setEventHandler {
      fatalError("Watchdog: \(name) still running \(watchdogLimit) after it started")
    }
    timer.schedule(deadline: .now() + watchdogLimit.seconds)
    timer.activate()
    defer { timer.cancel() }
    try await function()
  }
}

extension Trait where Self == Watchdog {
  /// Stops the test process, naming the test, when a test case hangs past ``watchdogLimit``.
  public static var watchdog: Self { Watchdog() }
}

/// An `XCTestCase` whose every test stops the test process, naming the test, when it is still
/// running ``watchdogLimit`` after it started: XCTest has no time limit for a synchronous test
/// that never returns. Every XCTest class here derives from it (`.ci/check-tests` checks).
open class WatchedTestCase: XCTestCase {
  // nonisolated(unsafe): only XCTest's own thread touches it, in setUp and tearDown.
  /// The running test's timer, made in `setUp()` and cancelled in `tearDown()`.
  private nonisolated(unsafe) var watchdog: (any DispatchSourceTimer)?

  override open func setUp() {
    super.setUp()
    let name = self.name
    let timer = DispatchSource.makeTimerSource(queue: watchdogQueue)
    timer.setEventHandler {
      fatalError("Watchdog: \(name) still running \(watchdogLimit) after it started")
    }
    timer.schedule(deadline: .now() + watchdogLimit.seconds)
    timer.activate()
    watchdog = timer
  }

  override open func tearDown() {
    watchdog?.cancel()
    watchdog = nil
    super.tearDown()
  }
}
