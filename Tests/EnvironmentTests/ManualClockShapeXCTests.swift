import TinyEnvironment
import TinyTestSupport
import XCTest

/// Shapes of `ManualClockShapeTests` as XCTest tests, where the main thread runs the main queue
/// (Swift Testing drains it from another thread): asynchronous test methods, `@MainActor` ones,
/// and a synchronous one that waits. XCTest has no time limit here, so each shape runs in a
/// task awaited for at most a minute: a broken clock stops the run with the test's name instead
/// of hanging it.
final class ManualClockShapeXCTests: WatchedTestCase {
  func testARetryLoopBacksOffOneTwoFourSeconds() async throws {
    let passed = try await value(of: Task { try await retryLoopBacksOff() })
    XCTAssertTrue(passed)
  }

  func testAPollingLoopPollsOncePerInterval() async {
    let passed = await value(of: Task { await pollingLoopPollsOncePerInterval() })
    XCTAssertTrue(passed)
  }

  func testATimeoutFires() async {
    let passed = await value(of: Task { await timeoutFires() })
    XCTAssertTrue(passed)
  }

  func testATimeoutDoesNotFireWhenTheWorkIsInTime() async throws {
    let passed = try await value(of: Task { try await timeoutDoesNotFire() })
    XCTAssertTrue(passed)
  }

  @MainActor func testADebouncedSearchSearchesForTheLastQueryOnly() async {
    let passed = await value(of: Task { @MainActor in await debouncedSearch() })
    XCTAssertTrue(passed)
  }

  @MainActor func testAMainActorPollingLoopAwaitedFromTheMainActorPollsThreeTimes() async {
    let failed = await failures(of: mainActorPollingLoopOnMain, quick: 5)
    XCTAssertEqual(failed, 0)
  }

  func testAMainActorPollingLoopAwaitedOffTheMainActorPollsThreeTimes() async {
    let failed = await ClockShape(name: "", quickRuns: 5, run: mainActorPollingLoop)
      .failures(quick: 5)
    XCTAssertEqual(failed, 0)
  }

  /// A synchronous test occupies the main thread; waiting with `wait(for:timeout:)` keeps the
  /// main queue running, so the main-actor loop polls meanwhile.
  func testASynchronousTestThatWaitsSeesAMainActorPollingLoopPollThreeTimes() {
    let advanced = expectation(description: "advanced")
    let passed = Recorder<Bool>()
    Task.detached {
      passed.record(await mainActorPollingLoop())
      advanced.fulfill()
    }
    wait(for: [advanced], timeout: 60)
    XCTAssertEqual(passed.all, [true])
  }
}
