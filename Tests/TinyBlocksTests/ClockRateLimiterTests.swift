// TinyScheduling's RateLimiter on a clock, driven by TinyEnvironment's ManualClock.

import Foundation
import Testing
import TinyEnvironment
import TinyInternals
import TinyScheduling
import TinyTestSupport
import TinyWaiting

/// A task-local value of the tests' own, to see which code's values an action reads.
enum Scope {
  @TaskLocal static var name = "none"
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ClockRateLimiterTests {
  @Test func runsTheFirstActionAtOnceThenTheLatestAtEachTickOfTheClock() async {
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    for name in ["a", "b", "c"] {
      limiter.execute { log.record("\(name) \(clock.now.offset)") }
    }
    #expect(log.all == ["a 0.0 seconds"])  // at once, inside execute
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(log.all == ["a 0.0 seconds", "c 1.0 seconds"])
    await clock.advance(by: .seconds(1))  // nothing kept: the limiter stops its launcher
    #expect(clock.sleeperCount == 0)
    limiter.execute { log.record("d \(clock.now.offset)") }  // quiescent: at once
    #expect(log.all == ["a 0.0 seconds", "c 1.0 seconds", "d 2.0 seconds"])
    limiter.cancel()
  }

  @Test func aLaterActionReadsTheMockWorldOfTheCodeThatPassedIt() async {
    let clock = ManualClock()
    let ids = Recorder<String>()
    await withWorld(.mock) { () async in
      Current.clock = clock
      let limiter = RateLimiter(interval: .milliseconds(250), clock: Current.clock)
      limiter.execute { ids.record(Current.uuid().uuidString) }  // at once
      limiter.execute { ids.record(Current.uuid().uuidString) }  // kept for the tick
      #expect(await clock.waitForSleepers())
      await clock.advance(by: .milliseconds(250))
      limiter.cancel()
    }
    #expect(
      ids.all == ["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001"])
  }

  @Test func eachKeptActionReadsTheValuesOfItsOwnExecute() async {
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let seen = Recorder<String>()
    Scope.$name.withValue("first") { limiter.execute { seen.record(Scope.name) } }
    Scope.$name.withValue("replaced") { limiter.execute { seen.record(Scope.name) } }
    Scope.$name.withValue("kept") { limiter.execute { seen.record(Scope.name) } }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(seen.all == ["first", "kept"])
    limiter.cancel()
  }

  @Test func withADispatchLauncherTheWorldIsCarriedByHand() async {
    // A tick of a launcher runs on the launcher's thread, outside the test's scope: the action
    // captures the world and enters it.
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let ids = Recorder<String>()
    withWorld(.mock) {
      limiter.execute {}
      let world = Current
      limiter.execute { withWorld(world) { ids.record(Current.uuid().uuidString) } }
    }
    _ = await onNewThread { launcher.fire() }
    #expect(ids.all == ["00000000-0000-0000-0000-000000000000"])
    limiter.cancel()
  }

  @Test func anAsyncActionRunsAloneAndATickMeanwhileIsSkipped() async {
    // "a" takes 2.5 s of the clock's time: the ticks at 1 s and 2 s find it running and are
    // skipped, and "b", kept meanwhile, runs at the tick after "a" returned.
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    limiter.execute {
      log.record("a starts \(clock.now.offset)")
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .milliseconds(2_500))
      log.record("a returns \(clock.now.offset)")
    }
    limiter.execute { log.record("b \(clock.now.offset)") }
    #expect(await clock.waitForSleepers(2))  // "a" sleeps, and so does the launcher
    await clock.advance(by: .seconds(3))
    #expect(
      log.all == ["a starts 0.0 seconds", "a returns 2.5 seconds", "b 3.0 seconds"])
    limiter.cancel()
  }

  @Test func waitUntilIdleFollowsTheActionThatStartedAtOnce() async {
    // The first action runs at once, in a task of its own that the clock does not wake: the
    // test waits for it before it moves the clock to the tick that runs the kept action (a tick
    // that found it still running would be skipped). The wait starts in an immediate task, which
    // runs here until it suspends: it surely waits before the action is let go on.
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    let release = Gate()
    limiter.execute {
      log.record("a")
      await release.opened()
      log.record("a returns")
    }
    limiter.execute { log.record("b \(clock.now.offset)") }
    let idle = Task.immediate {
      await limiter.waitUntilIdle()
      log.record("idle")
    }
    #expect(log.all == ["a"])
    release.open()
    await value(of: idle)
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(log.all == ["a", "a returns", "idle", "b 1.0 seconds"])
    limiter.cancel()
  }

  @Test func aCancelledOrReplacedActionIsReleasedWithoutRunning() async {
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let released = Waiter(count: 2)
    let ran = Recorder<String>()
    limiter.execute {}
    do {
      let replaced = OnDeinit { released.finish() }
      limiter.execute { withExtendedLifetime(replaced) { ran.record("replaced") } }
      let cancelled = OnDeinit { released.finish() }
      limiter.execute { withExtendedLifetime(cancelled) { ran.record("cancelled") } }
    }
    limiter.cancel()
    #expect(clock.sleeperCount == 0)
    #expect(await released.wait(timeout: helperTimeout))  // their tasks ended
    #expect(ran.all == [])
  }

  @Test func releasingAnActiveLimiterStopsItsLauncherAndDropsTheKeptAction() async {
    let clock = ManualClock()
    weak var weakLimiter: RateLimiter?
    let released = Waiter()
    do {
      let limiter = RateLimiter(interval: .seconds(1), clock: clock)
      weakLimiter = limiter
      limiter.execute {}
      let kept = OnDeinit { released.finish() }
      limiter.execute { withExtendedLifetime(kept) {} }
      #expect(await clock.waitForSleepers())
    }
    #expect(weakLimiter == nil)
    #expect(clock.sleeperCount == 0)
    #expect(await released.wait(timeout: helperTimeout))
  }

  @Test func flushRunsTheKeptActionInTheCall() async {
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .seconds(1), clock: clock)
    let log = Recorder<String>()
    limiter.execute { log.record("a") }
    limiter.execute { log.record("b") }
    #expect(limiter.flush())
    #expect(log.all == ["a", "b"])
    #expect(!limiter.flush())
    limiter.cancel()
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = RateLimiter(interval: .zero, clock: ContinuousClock()) }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "RateLimiter(interval:clock:): interval must be positive, got 0.0 seconds"))
  }

  @Test func fourThreadsExecutingWhileTheClockAdvances() async {
    // Every action records its thread and number; none may overlap another, and each thread's
    // actions run in the order it passed them.
    let clock = ManualClock()
    let limiter = RateLimiter(interval: .milliseconds(10), clock: clock)
    let probe = OverlapProbe()
    let perThread = stressVolume(full: 2_000, quick: 200)
    let done = Gate()
    let advancing = Task {
      while !done.isOpen { await clock.advance(by: .milliseconds(10)) }
    }
    await onThreads(4) { thread in
      for index in 0..<perThread {
        if index % 2 == 0 {
          limiter.execute { probe.ran(thread: thread, index: index) }
        } else {
          limiter.execute { await probe.ranAsync(thread: thread, index: index) }
        }
      }
    }
    done.open()
    await value(of: advancing)
    #expect(probe.maxConcurrentRuns == 1)
    for thread in 0..<4 {
      let indices = probe.runs.filter { $0.thread == thread }.map(\.index)
      #expect(indices == indices.sorted())
    }
    limiter.cancel()
  }
}

/// Records which actions ran and whether two ever overlapped.
final class OverlapProbe: Sendable {
  private let state = Locked<(running: Int, peak: Int, runs: [(thread: Int, index: Int)])>(
    (0, 0, []))

  func ran(thread: Int, index: Int) {
    begin(thread: thread, index: index)
    end()
  }

  func ranAsync(thread: Int, index: Int) async {
    begin(thread: thread, index: index)
    await Task.yield()  // stays "running" across a suspension
    end()
  }

  private func begin(thread: Int, index: Int) {
    state.withLock { state in
      state.running += 1
      state.peak = max(state.peak, state.running)
      state.runs.append((thread, index))
    }
  }

  private func end() {
    state.withLock { $0.running -= 1 }
  }

  var runs: [(thread: Int, index: Int)] { state.withLock { $0.runs } }
  var maxConcurrentRuns: Int { state.withLock { $0.peak } }
}
