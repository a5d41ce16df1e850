import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomicOrLockedTests {
  @Test func aFlagIsRaisedByExactlyOneOfManyRacingCallers() async {
    let flag = AtomicOrLocked()
    #expect(!flag.isRaised)
    let raisers = Counter()
    await onThreads(8) { _ in
      if flag.raise() { raisers.increment() }
    }
    #expect(flag.isRaised)
    #expect(raisers.value == 1)
  }

  @Test func loweringSaysWhetherItWasUp() {
    let flag = AtomicOrLocked()
    #expect(!flag.lower())
    flag.raise()
    #expect(flag.lower())
    #expect(!flag.isRaised)
  }
}
