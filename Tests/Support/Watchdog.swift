import Dispatch
import Testing
import TinyInternals
import XCTest

/// How long a test case may run before ``Watchdog`` stops the test process: half as long again
/// as ``suiteTimeLimit``, so that Swift Testing's own report of a test past its limit comes
/// first whenever the test can still be stopped.
public let watchdogLimit: Duration = .seconds(runsSlowly ? 450 : 90)

/// How long a test process may run once its first watched test has started, before the
/// watchdog stops it and names the tests still running: two minutes (half an hour when the run
/// is slow, ``runsSlowly``). A test case's own limit can start late, when the cases before it
/// keep the shared threads busy; this one bounds the whole run.
public let processWatchdogLimit: Duration = .seconds(runsSlowly ? 1_800 : 120)

/// The tests running now, by name, and the process's timer, started by the first of them.
private let running = ProcessWatchdog()

/// Stops the process ``processWatchdogLimit`` after the first watched test started, naming
/// the tests still running then.
private final class ProcessWatchdog: @unchecked Sendable {
  // @unchecked: the timer is set up in `init` and never touched again.
  private let names = Locked<[String: Int]>([:])
  private let timer: any DispatchSourceTimer = {
    let timer = DispatchSource.makeTimerSource(queue: watchdogQueue)
    timer.schedule(deadline: .now() + processWatchdogLimit.seconds)
    return timer
  }()

  init() {
    // The watchdog lives as long as the process: the cycle through its timer is never broken.
    timer.setEventHandler { [self] in
      let still = names.withLock { $0.keys.sorted() }.joined(separator: "; ")
      fatalError(
        "Watchdog: the test process is still running \(processWatchdogLimit) after its first "
          + "test started; still running: \(still)")
    }
    timer.activate()
  }

  func enter(_ name: String) { names.withLock { $0[name, default: 0] += 1 } }

  func leave(_ name: String) {
    names.withLock { names in
      names[name, default: 1] -= 1
      if names[name] == 0 { names[name] = nil }
    }
  }
}

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
    let stop = watch("\(test.name) (\(test.sourceLocation.fileID):\(test.sourceLocation.line))")
    defer { stop() }
    try await function()
  }
}

/// Starts watching the test `name`: counts it among the process's running tests and arms a
/// timer that stops the process if it is still running ``watchdogLimit`` later.
///
/// - Returns: What ends the watch, when the test has finished.
private func watch(_ name: String) -> () -> Void {
  let timer = DispatchSource.makeTimerSource(queue: watchdogQueue)
  timer.setEventHandler {
    fatalError("Watchdog: \(name) still running \(watchdogLimit) after it started")
  }
  timer.schedule(deadline: .now() + watchdogLimit.seconds)
  timer.activate()
  running.enter(name)
  return {
    timer.cancel()
    running.leave(name)
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
  /// Ends the running test's watch: set in `setUp()`, called in `tearDown()`.
  private nonisolated(unsafe) var stopWatching: (() -> Void)?

  override open func setUp() {
    super.setUp()
    stopWatching = watch(name)
  }

  override open func tearDown() {
    stopWatching?()
    stopWatching = nil
    super.tearDown()
  }
}
