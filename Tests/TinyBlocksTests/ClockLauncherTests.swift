// TinyScheduling's clock launcher, driven by TinyEnvironment's ManualClock (the block's own
// tests run it on a StepClock, including its coalescing and its races).

import Foundation
import Testing
import TinyEnvironment
import TinyScheduling
import TinyTestSupport
import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ClockLauncherTests {
  @Test func ticksOnAGridOfTheClocksInstantsFromStart() async {
    let clock = ManualClock()
    await clock.advance(by: .seconds(5))  // the grid begins at start(), not at the clock's zero
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<Duration>()
    launcher.every(.seconds(2)) { ticks.record(clock.now.offset) }
    #expect(clock.sleeperCount == 0)  // inactive: nothing sleeps
    launcher.start()
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .milliseconds(1_999))
    #expect(ticks.all == [])
    await clock.advance(by: .seconds(4) + .milliseconds(1))
    #expect(ticks.all == [.seconds(7), .seconds(9), .seconds(11)])
    launcher.stop()
    #expect(clock.sleeperCount == 0)  // stop() cancelled the sleeping task
  }

  @Test func startAndStopAreIdempotentAndNoTickStartsAfterStop() async {
    let clock = ManualClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Counter()
    launcher.every(.seconds(1)) { ticks.increment() }
    launcher.stop()  // inactive: nothing
    launcher.start()
    #expect(await clock.waitForSleepers())
    launcher.start()  // active: no second grid
    await clock.advance(by: .seconds(3))
    #expect(ticks.value == 3)
    #expect(clock.sleeperCount == 1)
    launcher.stop()
    launcher.stop()
    #expect(!launcher.isActive)
    await clock.advance(by: .seconds(3))
    #expect(ticks.value == 3)
  }

  @Test func aStartBeforeEveryTicksOnceTheLauncherHasAnInterval() async {
    let clock = ManualClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<Duration>()
    launcher.start()
    #expect(launcher.isActive)
    await clock.advance(by: .seconds(1))
    launcher.every(.seconds(2)) { ticks.record(clock.now.offset) }  // the grid begins here
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(4))
    #expect(ticks.all == [.seconds(3), .seconds(5)])
    launcher.stop()
  }

  @Test func everyWithTheSameIntervalKeepsTheGridAndANewIntervalRestartsIt() async {
    let clock = ManualClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<String>()
    launcher.every(.seconds(2)) { ticks.record("a \(clock.now.offset)") }
    launcher.start()
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    launcher.every(.seconds(2)) { ticks.record("b \(clock.now.offset)") }  // same grid
    await clock.advance(by: .seconds(2))
    launcher.every(.seconds(3)) { ticks.record("c \(clock.now.offset)") }  // a grid from 3 s
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(3))
    #expect(ticks.all == ["b 2.0 seconds", "c 6.0 seconds"])
    launcher.stop()
  }

  @Test func theTaskMayStopStartAndReplaceItself() async {
    let clock = ManualClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<String>()
    launcher.every(.seconds(2)) { [weak launcher] in
      ticks.record("tick \(clock.now.offset)")
      launcher?.stop()
      launcher?.start()  // a new grid from 2 s
      launcher?.every(.seconds(2)) { ticks.record("next \(clock.now.offset)") }
    }
    launcher.start()
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(4))
    #expect(ticks.all == ["tick 2.0 seconds", "next 4.0 seconds"])
    #expect(clock.sleeperCount == 1)  // the first grid's task ended
    launcher.stop()
    #expect(clock.sleeperCount == 0)
  }

  @Test func releasingAnActiveLauncherStopsItAndFreesItsTask() async {
    let clock = ManualClock()
    weak var weakLauncher: ClockPeriodicTaskLauncher?
    let taskFreed = Gate()
    do {
      let launcher = ClockPeriodicTaskLauncher(clock: clock)
      weakLauncher = launcher
      let marker = OnDeinit { taskFreed.open() }
      launcher.every(.seconds(1)) { withExtendedLifetime(marker) {} }
      launcher.start()
      #expect(await clock.waitForSleepers())
    }
    #expect(weakLauncher == nil)
    #expect(taskFreed.isOpen)
    #expect(clock.sleeperCount == 0)  // its sleeping task was cancelled
  }

  @Test func takesTheWorldsClockAsAnyClock() async {
    let manual = ManualClock()
    await withWorld(.mock) { () async in
      Current.clock = manual
      let launcher = ClockPeriodicTaskLauncher(clock: Current.clock)
      let ids = Recorder<UUID>()
      launcher.every(.seconds(1)) { ids.record(Current.uuid()) }  // the scope of start()
      launcher.start()
      #expect(await manual.waitForSleepers())
      await manual.advance(by: .seconds(2))
      launcher.stop()
      #expect(
        ids.all.map(\.uuidString) == [
          "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
        ])
    }
  }

  @Test func anAsyncTickRunsInTheWorldOfStartAndAdvanceFollowsIt() async {
    // Each tick fetches for a second of the clock's time; the next tick waits for it.
    let manual = ManualClock()
    await withWorld(.mock) { () async in
      Current.clock = manual
      let launcher = ClockPeriodicTaskLauncher(clock: Current.clock)
      let log = Recorder<String>()
      launcher.every(.seconds(60)) {
        let request = Current.uuid().uuidString.suffix(1)
        // timing: virtual time, which only the test moves
        try? await Current.clock.sleep(for: .seconds(1))
        log.record("\(request) done at \(manual.now.offset)")
      }
      launcher.start()
      #expect(await manual.waitForSleepers())
      await manual.advance(by: .seconds(60))
      #expect(log.all == [])  // the tick sleeps on the clock
      await manual.advance(by: .seconds(1))
      #expect(log.all == ["0 done at 61.0 seconds"])
      await manual.advance(by: .seconds(60))
      #expect(log.all == ["0 done at 61.0 seconds", "1 done at 121.0 seconds"])
      launcher.stop()
      #expect(manual.sleeperCount == 0)
    }
  }

  @Test(arguments: ["stop and start", "new interval"])
  func deadlinesThatPassWhileANewGridsTickWaitsMergeIntoOneTick(change: String) async {
    // "a" runs when the grid is replaced. The new grid's first deadline passes, and its tick
    // waits for "a" (each advance returns once that tick waits); then one more interval passes.
    // Both deadlines passed while "a" ran: one tick, right after it, as with a jump.
    let clock = ManualClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let log = Recorder<String>()
    let release = Gate()
    launcher.every(.seconds(1)) { () async in
      log.record("a")
      await release.opened()
      log.record("a returns")
    }
    launcher.start()
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))  // "a" runs and waits
    if change == "stop and start" {
      launcher.stop()
      launcher.start()  // a grid from 1 s
    }
    let interval = Duration.seconds(change == "stop and start" ? 1 : 2)  // 2 s: a grid from 1 s
    launcher.every(interval) { () async in log.record("b at \(clock.now.offset)") }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: interval)  // the new grid's first deadline: its tick waits for "a"
    await clock.advance(by: interval)  // its second deadline passes meanwhile
    #expect(log.all == ["a"])
    release.open()
    #expect(await clock.waitForSleepers())  // the grid sleeps again after its ticks
    let now = (.seconds(1) + interval * 2).description
    #expect(log.all == ["a", "a returns", "b at \(now)"])
    launcher.stop()
  }

  @Test func ticksOnTheContinuousClock() async {
    let launcher = ClockPeriodicTaskLauncher(clock: ContinuousClock())
    let threeTicks = Waiter(count: 3)
    launcher.every(.milliseconds(5)) { threeTicks.finish() }
    launcher.start()
    #expect(await threeTicks.wait(timeout: helperTimeout))
    launcher.stop()
  }

}
