import Testing
import TinyTestSupport

@testable import TinyScheduling

@Suite(.timeLimit(suiteTimeLimit)) struct LimiterCoreTests {
  @Test func actionsThatWaitedRunInOrderRightAfterTheRunningOneOnItsThread() {
    let launcher = FakePeriodicTaskLauncher()
    let core = LimiterCore<RateLimiterState<Work>>(
      interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    core.execute {
      log.record("a")
      core.cancel()
      core.execute { log.record("b") }  // quiescent again, but "a" still runs: b waits
      core.execute { log.record("c") }  // kept for the next tick
      #expect(core.flush())  // c waits too, after b
      log.record("a ends")
    }
    #expect(log.all == ["a", "a ends", "b", "c"])
  }

  @Test func setsTheLaunchersTaskAndStopsItWhenReleased() {
    let launcher = FakePeriodicTaskLauncher()
    weak var weakCore: LimiterCore<DebouncerState<Work>>?
    do {
      let core = LimiterCore<DebouncerState<Work>>(
        interval: .seconds(2), launcher: launcher)
      weakCore = core
      core.execute {}
      #expect(launcher.interval == .seconds(2))
      #expect(launcher.isActive)
    }
    #expect(weakCore == nil)
    #expect(!launcher.isActive)
  }
}
