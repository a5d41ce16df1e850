import Foundation
import TinyScheduling
import TinyWaiting
import XCTest
import TinyTestSupport

/// `onMainQueue(_:)` runs work at once only when called on the main queue. Swift Testing runs
/// tests off the main thread, so these synchronous tests use XCTest, which runs them on the main
/// thread; the waiter spins the main run loop.
final class OnMainQueueTests: WatchedTestCase {
  func testOnTheMainThreadItRunsAtOnce() {
    let log = Recorder<String>()
    onMainQueue { log.record("work") }
    log.record("returned")
    XCTAssertEqual(log.all, ["work", "returned"])
  }

  func testFromAnotherThreadItRunsLaterOnTheMainQueue() {
    let log = Recorder<String>()
    let ran = Waiter()
    let called = DispatchSemaphore(value: 0)  // bounded: waited for with a 5 s timeout below
    Thread {
      onMainQueue {
        log.record(isOnMainQueue() ? "work on main" : "work elsewhere")
        ran.finish()
      }
      log.record("returned")
      called.signal()
    }.start()
    // A semaphore blocks the main thread without draining the main queue, so the work cannot
    // run before the other thread's call has returned.
    XCTAssertEqual(called.wait(timeout: .now() + 5), .success)
    XCTAssertEqual(log.all, ["returned"])
    XCTAssertTrue(ran.wait(timeout: .seconds(5)))
    XCTAssertEqual(log.all, ["returned", "work on main"])
  }

  func testInsideAMainQueueBlockItRunsAtOnce() {
    let log = Recorder<String>()
    let done = Waiter()
    DispatchQueue.main.async {
      onMainQueue { log.record("work") }
      log.record("returned")
      done.finish()
    }
    XCTAssertTrue(done.wait(timeout: .seconds(5)))
    XCTAssertEqual(log.all, ["work", "returned"])
  }

  func testOnAQueueThatTargetsTheMainQueueItRunsAtOnce() {
    let queue = DispatchQueue(label: "test.on-main", target: .main)
    let log = Recorder<String>()
    let done = Waiter()
    queue.async {
      onMainQueue { log.record("work") }
      log.record("returned")
      done.finish()
    }
    XCTAssertTrue(done.wait(timeout: .seconds(5)))
    XCTAssertEqual(log.all, ["work", "returned"])
  }

  func testFromAnotherQueueItRunsLaterInOrder() {
    let log = Recorder<Int>()
    let ran = Waiter(count: 3)
    DispatchQueue.global().async {
      for number in 1...3 {
        onMainQueue {
          log.record(number)
          ran.finish()
        }
      }
    }
    XCTAssertTrue(ran.wait(timeout: .seconds(5)))
    XCTAssertEqual(log.all, [1, 2, 3])
  }
}

/// A key that marks the main queue, so a block can tell whether it runs on it.
private let testMainQueueKey = DispatchSpecificKey<Bool>()

/// Whether the caller runs on the main queue, read from a key of the test's own.
private func isOnMainQueue() -> Bool {
  DispatchQueue.main.setSpecific(key: testMainQueueKey, value: true)
  return DispatchQueue.getSpecific(key: testMainQueueKey) == true
}
