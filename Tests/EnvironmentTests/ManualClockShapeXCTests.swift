import TinyEnvironment
import XCTest

/// The same four shapes as `ManualClockShapeTests`, as XCTest tests: asynchronous test methods,
/// whose bodies run off the main thread while the main queue keeps draining.
final class ManualClockShapeXCTests: XCTestCase {
  func testARetryLoopBacksOffOneTwoFourSeconds() async throws {
    let passed = try await retryLoopBacksOff()
    XCTAssertTrue(passed)
  }

  func testAPollingLoopPollsOncePerInterval() async {
    let passed = await pollingLoopPollsOncePerInterval()
    XCTAssertTrue(passed)
  }

  func testATimeoutFires() async {
    let passed = await timeoutFires()
    XCTAssertTrue(passed)
  }

  func testATimeoutDoesNotFireWhenTheWorkIsInTime() async throws {
    let passed = try await timeoutDoesNotFire()
    XCTAssertTrue(passed)
  }

  @MainActor func testADebouncedSearchSearchesForTheLastQueryOnly() async {
    let passed = await debouncedSearch()
    XCTAssertTrue(passed)
  }
}
