import Dispatch
import Testing
@testable import TinyWaiting

@Suite struct LockedTests {
  @Test func concurrentUpdatesAreNeverLost() {
    let counter = Counter()
    DispatchQueue.concurrentPerform(iterations: 100_000) { _ in
      counter.state.withLock { $0 += 1 }
    }
    #expect(counter.state.withLock { $0 } == 100_000)
  }

  @Test func withLockReturnsTheBodysResult() {
    let locked = Locked([1, 2])
    #expect(
      locked.withLock { state -> Int in
        state.append(3)
        return state.count
      } == 3)
  }

  /// A class holding a lock, as the waiter and the promise do.
  private final class Counter: Sendable {
    let state = Locked(0)
  }
}
