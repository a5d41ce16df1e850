// TinyScheduling's Debouncer on a clock, driven by TinyEnvironment's ManualClock.

import Foundation
import Testing
import TinyEnvironment
import TinyScheduling
import TinyTestSupport
import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ClockDebouncerTests {
  @Test func runsTheLatestActionOneIntervalAfterIt() async {
    let clock = ManualClock()
    let debouncer = Debouncer(interval: .milliseconds(300), clock: clock)
    let log = Recorder<String>()
    debouncer.execute { log.record("a") }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .milliseconds(200))
    debouncer.execute { log.record("b \(clock.now.offset)") }  // restarts the interval
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .milliseconds(299))
    #expect(log.all == [])
    await clock.advance(by: .milliseconds(1))
    #expect(log.all == ["b 0.5 seconds"])
    #expect(clock.sleeperCount == 0)  // the tick that ran it stopped the launcher
  }

  @Test func aLaterActionReadsTheMockWorldOfTheCodeThatPassedIt() async {
    let clock = ManualClock()
    let ids = Recorder<String>()
    await withWorld(.mock) { () async in
      Current.clock = clock
      let debouncer = Debouncer(interval: .milliseconds(300), clock: Current.clock)
      _ = Current.uuid()  // 0
      debouncer.execute { ids.record(Current.uuid().uuidString) }
      #expect(await clock.waitForSleepers())
      await clock.advance(by: .milliseconds(300))
    }
    #expect(ids.all == ["00000000-0000-0000-0000-000000000001"])
  }

  @Test func anAsyncActionRunsAloneAndATickMeanwhileIsSkipped() async {
    // "a" runs at 1 s and takes 2.2 s. "b" comes at 1.5 s: its tick at 2.5 s finds "a" running
    // and is skipped; the launcher ticks on, and the tick at 3.5 s runs "b".
    let clock = ManualClock()
    let debouncer = Debouncer(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    debouncer.execute {
      log.record("a starts \(clock.now.offset)")
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .milliseconds(2_200))
      log.record("a returns \(clock.now.offset)")
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .milliseconds(1_500))
    debouncer.execute { log.record("b \(clock.now.offset)") }
    #expect(await clock.waitForSleepers(2))
    await clock.advance(by: .seconds(2))
    #expect(
      log.all == ["a starts 1.0 seconds", "a returns 3.2 seconds", "b 3.5 seconds"])
    #expect(clock.sleeperCount == 0)
  }

  @Test func releasingAnActiveDebouncerStopsItsLauncherAndDropsTheWaitingAction() async {
    let clock = ManualClock()
    weak var weakDebouncer: Debouncer?
    let released = Waiter()
    do {
      let debouncer = Debouncer(interval: .seconds(1), clock: clock)
      weakDebouncer = debouncer
      let waiting = OnDeinit { released.finish() }
      debouncer.execute { withExtendedLifetime(waiting) {} }
      #expect(await clock.waitForSleepers())
    }
    #expect(weakDebouncer == nil)
    #expect(clock.sleeperCount == 0)
    #expect(await released.wait(timeout: helperTimeout))
  }

  @Test func cancelDropsTheWaitingActionAndFlushRunsItInTheCall() async {
    let clock = ManualClock()
    let debouncer = Debouncer(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    debouncer.execute { log.record("a") }
    debouncer.cancel()
    #expect(clock.sleeperCount == 0)
    await clock.advance(by: .seconds(2))
    debouncer.execute { log.record("b") }
    #expect(debouncer.flush())
    #expect(log.all == ["b"])
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let negative = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = Debouncer(interval: .seconds(-1), clock: ContinuousClock()) }
    #expect(
      String(decoding: negative.standardErrorContent, as: UTF8.self).contains(
        "Debouncer(interval:clock:): interval must be positive, got -1.0 seconds"))
  }
}
