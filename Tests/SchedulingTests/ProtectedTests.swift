import Dispatch
import Testing

@testable import TinyScheduling

@Suite struct ProtectedTests {
  @Test func returnsWhatTheBodyReturnsAndKeepsItsChanges() {
    let protected = Protected([1])
    let count = protected.withLock { state -> Int in
      state.append(2)
      return state.count
    }
    #expect(count == 2)
    #expect(protected.withLock { $0 } == [1, 2])
  }

  @Test func concurrentIncrementsAllCount() {
    let protected = Protected(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { protected.withLock { $0 += 1 } }
    }
    #expect(protected.withLock { $0 } == 80_000)
  }
}
