import Testing
import TinyTestSupport

@testable import TinyScheduling

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct LimiterCoreTests {
  @Test func actionsThatWaitedRunInOrderRightAfterTheRunningOneOnItsThread() {
    let launcher = FakePeriodicTaskLauncher()
    let core = LimiterCore<RateLimiterState<Action>>(
      interval: .seconds(1), launcher: launcher, api: "test")
    let log = Recorder<String>()
    let a: @Sendable () -> Void = {
      log.record("a")
      core.cancel()
      core.execute(sync: { log.record("b") }, async: {})  // quiescent again, "a" runs: b waits
      core.execute(sync: { log.record("c") }, async: {})  // kept for the next tick
      #expect(core.flush())  // c waits too, after b
      log.record("a ends")
    }
    core.execute(sync: a, async: {})
    #expect(log.all == ["a", "a ends", "b", "c"])
  }

  @Test func setsTheLaunchersTaskAndStopsItWhenReleased() {
    let launcher = FakePeriodicTaskLauncher()
    weak var weakCore: LimiterCore<DebouncerState<Action>>?
    do {
      let core = LimiterCore<DebouncerState<Action>>(
        interval: .seconds(2), launcher: launcher, api: "test")
      weakCore = core
      core.execute(sync: {}, async: {})
      #expect(launcher.interval == .seconds(2))
      #expect(launcher.isActive)
    }
    #expect(weakCore == nil)
    #expect(!launcher.isActive)
  }
}
