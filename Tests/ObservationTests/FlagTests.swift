import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit)) struct FlagTests {
  @Test func aFlagIsRaisedOnceByExactlyOneCaller() async {
    let flag = Flag()
    #expect(!flag.isRaised)
    let raisers = Locked(0)
    await onThreads(8) { _ in
      if flag.raise() { raisers.withLock { $0 += 1 } }
    }
    #expect(flag.isRaised)
    #expect(raisers.withLock { $0 } == 1)
  }
}
