import TinyEnvironment
import TinyTestSupport
import XCTest

/// The same four shapes as `ManualClockShapeTests`, as XCTest tests: asynchronous test methods,
/// whose bodies run off the main thread while the main queue keeps draining. XCTest has no time
/// limit here, so each shape runs in a task awaited for at most a minute: a broken clock stops
/// the run with the test's name instead of hanging it.
final class ManualClockShapeXCTests: XCTestCase {
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
}
