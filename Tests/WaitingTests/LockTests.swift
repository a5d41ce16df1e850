import Dispatch
import Testing
@testable import TinyWaiting

@Suite struct LockTests {
  @Test func concurrentUpdatesAreNeverLost() {
    let counter = Counter()
    DispatchQueue.concurrentPerform(iterations: 100_000) { _ in counter.increment() }
    #expect(counter.value == 100_000)
  }

  @Test func withLockReturnsWhatTheBodyReturnsAndRethrows() {
    let lock = Lock()
    #expect(lock.withLock { 42 } == 42)
    #expect(throws: TestError(1)) { try lock.withLock { throw TestError(1) } }
    #expect(lock.withLock { "the lock was released" } == "the lock was released")
  }

  /// A counter behind a lock, as the waiter keeps its state.
  private final class Counter: @unchecked Sendable {  // safe: `count` only under `lock`
    private let lock = Lock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
  }
}
