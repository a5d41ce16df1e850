import Foundation
import Testing
import TinyTestSupport
import TinyWaiting

@testable import TinyScheduling

/// The clock launcher on a `StepClock`; TinyBlocksTests runs it on TinyEnvironment's
/// `ManualClock` too.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ClockPeriodicTaskLauncherTests {
  @Test func startReturnsWithTheTickingTaskAsleepOnTheClock() {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    launcher.every(.seconds(1)) {}
    launcher.start()
    #expect(clock.sleeperCount == 1)  // no wait: the task ran here until it slept
    launcher.stop()
    #expect(clock.sleeperCount == 0)
  }

  @Test func ticksOnAGridThatBeginsAtStart() async {
    let clock = StepClock()
    clock.advance(to: .init(offset: .seconds(5)))
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<Duration>()
    let ticked = Waiter(count: 2)
    launcher.every(.seconds(2)) {
      ticks.record(clock.now.offset)
      ticked.finish()
    }
    launcher.start()
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .milliseconds(6_999)))
    #expect(clock.sleeperCount == 1)  // not due yet
    clock.advance(to: .init(offset: .seconds(7)))
    await clock.waitForSleepers()  // after the tick, asleep until the next deadline
    clock.advance(to: .init(offset: .seconds(9)))
    #expect(await ticked.wait(timeout: helperTimeout))
    #expect(ticks.all == [.seconds(7), .seconds(9)])
    launcher.stop()
  }

  @Test func deadlinesThatPassDuringATickAreCoalescedIntoOneTick() async {
    // The first tick's task takes 2.5 s of the clock's time: the deadlines at 2 s and 3 s
    // pass meanwhile, so one tick runs for both, at once, and the grid goes on at 4 s.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<Duration>()
    let ticked = Waiter(count: 2)
    launcher.every(.seconds(1)) {
      ticks.record(clock.now.offset)
      if ticks.count == 1 { clock.advance(to: .init(offset: .milliseconds(3_500))) }
      ticked.finish()
    }
    launcher.start()
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(1)))
    #expect(await ticked.wait(timeout: helperTimeout))
    await clock.waitForSleepers()
    #expect(ticks.all == [.seconds(1), .milliseconds(3_500)])
    clock.advance(to: .init(offset: .seconds(4)))
    await clock.waitForSleepers()
    #expect(ticks.all == [.seconds(1), .milliseconds(3_500), .seconds(4)])
    launcher.stop()
  }

  @Test(
    arguments: [
      (Duration.seconds(1), 1),  // exactly one interval late
      (Duration.seconds(60), 159),  // 158.99… intervals in floating point
      (Duration.seconds(1.1), 5),
      (Duration.milliseconds(16.7), 17),
      (Duration.microseconds(16_700), 8_839),
      (Duration.seconds(1) / 3, 3),
    ] as [(Duration, Int)])
  func aJumpOfWholeIntervalsTicksOnceAndKeepsTheGrid(interval: Duration, missed: Int) async {
    // The first tick, at one interval, moves the clock `missed` intervals past the second
    // deadline: the second deadline and the `missed` after it merge into one tick, at once, and
    // the grid sleeps until the deadline after that.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let jumpedTo = StepClock.Instant(offset: interval * (missed + 2))
    let ticks = Recorder<Duration>()
    let ticked = Waiter(count: 2)
    launcher.every(interval) {
      ticks.record(clock.now.offset)
      if ticks.count == 1 { clock.advance(to: jumpedTo) }
      ticked.finish()
    }
    launcher.start()
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: interval))
    #expect(await ticked.wait(timeout: helperTimeout))
    await clock.waitForSleepers()  // asleep again: every tick of the jump has run
    #expect(ticks.all == [interval, jumpedTo.offset])
    clock.advance(to: jumpedTo.advanced(by: interval))
    await clock.waitForSleepers()  // the tick has run, and the grid sleeps again
    #expect(ticks.all == [interval, jumpedTo.offset, jumpedTo.offset + interval])
    launcher.stop()
  }

  @Test func asyncTicksNeverOverlapAndTheDeadlinesMissedMeanwhileTickOnceRightAfter() async {
    // The first tick runs from 1 s until the test lets it return, at 3.5 s: the deadlines at
    // 2 s and 3 s pass meanwhile, and the grid does not sleep (it awaits the tick). They merge
    // into one tick, right after the first returns; the grid goes on at 4 s.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let log = Recorder<String>()
    let count = Counter()
    let started = Gate()
    let release = Gate()
    launcher.every(.seconds(1)) { () async in
      let tick = count.increment()
      log.record("\(tick) at \(clock.now.offset)")
      if tick == 1 {
        started.open()
        await release.opened()
      }
      log.record("\(tick) returns")
    }
    launcher.start()
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(1)))
    await started.opened()
    clock.advance(to: .init(offset: .milliseconds(3_500)))
    #expect(clock.sleeperCount == 0)  // the grid awaits the running tick
    #expect(log.all == ["1 at 1.0 seconds"])
    release.open()
    await clock.waitForSleepers()  // the merged tick has run; the grid sleeps until 4 s
    #expect(log.all == ["1 at 1.0 seconds", "1 returns", "2 at 3.5 seconds", "2 returns"])
    clock.advance(to: .init(offset: .seconds(4)))
    await clock.waitForSleepers()
    #expect(log.all.suffix(2) == ["3 at 4.0 seconds", "3 returns"])
    launcher.stop()
  }

  @Test(arguments: ["stop and start", "new interval"])
  func aTickOfANewGridWaitsForTheTickThatStillRuns(change: String) async {
    // "a" runs when the grid is replaced; the new grid's first deadline passes while it runs:
    // that tick waits for "a" to return, and "a" is not cancelled by the stop. The deadlines
    // that pass while it waits, up to 5 s, merge into it: one tick.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let log = Recorder<String>()
    let started = Gate()
    let release = Gate()
    let secondTick = Waiter()
    launcher.every(.seconds(1)) { () async in
      log.record("a")
      started.open()
      await release.opened()
      log.record(Task.isCancelled ? "a returns cancelled" : "a returns")
    }
    launcher.start()
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(1)))
    await started.opened()
    if change == "stop and start" {
      launcher.stop()
      launcher.start()  // a grid from 1 s: its first deadline is 2 s
    }
    // The same interval keeps the grid; two seconds start one from 1 s, to 3 s.
    launcher.every(.seconds(change == "stop and start" ? 1 : 2)) { () async in
      log.record("b")
      secondTick.finish()
    }
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(3)))
    // bounded: the new grid's tick would start within microseconds if it did not wait
    #expect(await !secondTick.wait(timeout: .milliseconds(100)))
    #expect(log.all == ["a"])
    clock.advance(to: .init(offset: .seconds(5)))  // while the new grid's tick waits
    release.open()
    #expect(await secondTick.wait(timeout: helperTimeout))
    #expect(log.all == ["a", "a returns", "b"])
    await clock.waitForSleepers()  // after its one tick, the new grid sleeps until 6 s or 7 s
    #expect(log.all == ["a", "a returns", "b"])
    launcher.stop()
  }

  @Test func anAsyncTickReadsTheValuesOfTheCodeThatStartedTheGrid() async {
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let seen = Recorder<String>()
    let ticked = Waiter()
    launcher.every(.seconds(1)) { () async in
      await Task.yield()
      seen.record(Scope.name)
      ticked.finish()
    }
    Scope.$name.withValue("start") { launcher.start() }
    await clock.waitForSleepers()
    await onNewThread { clock.advance(to: .init(offset: .seconds(1))) }  // a thread out of scope
    #expect(await ticked.wait(timeout: helperTimeout))
    #expect(seen.all == ["start"])
    launcher.stop()
  }

  @Test func releasingAnActiveLauncherStopsIt() async {
    let clock = StepClock()
    weak var weakLauncher: ClockPeriodicTaskLauncher?
    do {
      let launcher = ClockPeriodicTaskLauncher(clock: clock)
      weakLauncher = launcher
      launcher.every(.seconds(1)) {}
      launcher.start()
      await clock.waitForSleepers()
    }
    #expect(weakLauncher == nil)
    #expect(clock.sleeperCount == 0)  // its sleeping task was cancelled
  }

  @Test func aGridWhoseLauncherIsGoneEndsOnAClockThatIgnoresCancellation() async {
    // Releasing the launcher cancels its ticking task, which this clock does not hear: the
    // sleep returns at its deadline all the same, and the tick that finds no launcher ends
    // the task, which lets go of the clock.
    let base = StepClock()
    let clockReleased = Waiter()
    do {
      let launcher = ClockPeriodicTaskLauncher(
        clock: CancellationIgnoringClock(base, onDeinit: { clockReleased.finish() }))
      launcher.every(.seconds(1)) {}
      launcher.start()
      await base.waitForSleepers()
    }
    base.advance(to: .init(offset: .seconds(1)))
    #expect(await clockReleased.wait(timeout: helperTimeout))
    #expect(base.sleeperCount == 0)
  }

  @Test func aClockLimitersFirstActionRunsInTheCallThatPassesIt() {
    let limiter = RateLimiter(interval: .seconds(1), clock: StepClock())
    let seen = Recorder<String>()
    Scope.$name.withValue("caller") { limiter.execute { seen.record(Scope.name) } }
    #expect(seen.all == ["caller"])  // before execute returned, with the caller's values
  }

  @Test func startStopAndEveryFromManyThreadsLeaveOneGridOrNone() async {
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    launcher.every(.seconds(1)) {}
    await onThreads(4) { thread in
      for index in 0..<stressVolume(full: 5_000, quick: 500) {
        switch (thread + index) % 3 {
        case 0: launcher.start()
        case 1: launcher.stop()
        default: launcher.every(.seconds(index % 2 == 0 ? 1 : 2)) {}
        }
      }
    }
    launcher.start()
    await clock.waitForSleepers()
    #expect(clock.sleeperCount == 1)  // every other grid's task was cancelled
    launcher.stop()
    #expect(clock.sleeperCount == 0)
  }

  @Test func aGridStartedWhileAnotherThreadStopsTheLauncherIsCancelled() async {
    // start() reads the clock after its lock; a stop() comes meanwhile: the grid that start()
    // then begins must neither stay asleep on the clock nor tick.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Counter()
    launcher.every(.seconds(1)) { ticks.increment() }
    let reached = Gate()
    let release = Gate()
    clock.holdNextRead(reached: reached, release: release)
    let started = startThread { launcher.start() }
    await reached.opened()
    launcher.stop()
    release.open()
    await started.opened()
    #expect(clock.sleeperCount == 0)
    clock.advance(to: .init(offset: .seconds(5)))
    #expect(ticks.value == 0)
  }

  @Test func aTickOfAReplacedGridRunsNothing() async {
    // The grid's task wakes at 1 s; while it reads the time, a new interval replaces its grid.
    // Its tick must not run the task: the next tick is the new grid's, at 1 s + 2 s.
    let clock = StepClock()
    let launcher = ClockPeriodicTaskLauncher(clock: clock)
    let ticks = Recorder<Duration>()
    let ticked = Waiter()
    launcher.every(.seconds(1)) {}
    launcher.start()
    await clock.waitForSleepers()
    let reached = Gate()
    let release = Gate()
    clock.holdNextRead(reached: reached, release: release)
    // The held read blocks the woken task's thread, one of the few the tasks share: the grid is
    // replaced and the read released from a thread of its own, which needs none of theirs.
    let replaced = startThread {
      reached.wait()
      launcher.every(.seconds(2)) {
        ticks.record(clock.now.offset)
        ticked.finish()
      }
      release.open()
    }
    clock.advance(to: .init(offset: .seconds(1)))
    await replaced.opened()
    // Nothing may tick until the clock reaches the new grid's deadline: the woken task, running
    // again now, gets a tenth of a second to show that it ticks.
    #expect(await !ticked.wait(timeout: .milliseconds(100)))
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(3)))
    #expect(await ticked.wait(timeout: helperTimeout))
    launcher.stop()
    #expect(ticks.all == [.seconds(3)])
  }

  @Test func aKeptActionReadsTheValuesOfItsOwnExecute() async {
    let clock = StepClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let seen = Recorder<String>()
    let ran = Waiter(count: 2)
    for name in ["first", "replaced", "kept"] {
      Scope.$name.withValue(name) {
        limiter.execute {
          seen.record(Scope.name)
          ran.finish()
        }
      }
    }
    await clock.waitForSleepers()
    clock.advance(to: .init(offset: .seconds(1)))  // the tick, in the launcher's task
    #expect(await ran.wait(timeout: helperTimeout))
    #expect(seen.all == ["first", "kept"])
    limiter.cancel()
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { ClockPeriodicTaskLauncher(clock: ContinuousClock()).every(.zero) {} }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "ClockPeriodicTaskLauncher.every(_:launch:): interval must be positive, got 0.0 seconds"))
  }
}

/// A clock whose sleeps do not end when their task is cancelled: each runs on `base` in a task
/// of its own, which the sleeping task's cancellation does not reach.
final class CancellationIgnoringClock: Clock, Sendable {
  let base: StepClock
  private let onDeinit: @Sendable () -> Void

  init(_ base: StepClock, onDeinit: @escaping @Sendable () -> Void) {
    self.base = base
    self.onDeinit = onDeinit
  }

  deinit { onDeinit() }

  var now: StepClock.Instant { base.now }
  var minimumResolution: Duration { .zero }

  // timing: the base clock's sleep, in virtual time that only the test moves
  func sleep(until deadline: StepClock.Instant, tolerance: Duration?) async throws {
    let base = base
    // timing: the same sleep, in a task of its own
    _ = await value(of: Task { try? await base.sleep(until: deadline, tolerance: tolerance) })
  }
}
