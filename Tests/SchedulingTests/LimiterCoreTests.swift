import Testing
import TinyInternals
import TinyTestSupport
import TinyWaiting

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

  // `waitUntilIdle()`, through both limiters. Each wait starts in an immediate task, which runs
  // on the test's thread until it first suspends: so it surely waits (or has wrongly returned)
  // before the test lets the running action go on.

  @Test func waitUntilIdleWaitsForAnActionStartedAtOnceButNotForAKeptOne() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let release = Gate()
    limiter.execute {
      log.record("a")
      await release.opened()
      log.record("a returns")
    }
    limiter.execute { log.record("kept") }  // for the next tick: does not count
    let idle = Task.immediate {
      await limiter.waitUntilIdle()
      log.record("idle")
    }
    #expect(log.all == ["a"])
    release.open()
    await value(of: idle)
    #expect(log.all == ["a", "a returns", "idle"])
    #expect(launcher.fire())
    #expect(log.all == ["a", "a returns", "idle", "kept"])
    await limiter.waitUntilIdle()  // idle: at once
    limiter.cancel()
  }

  @Test func waitUntilIdleWaitsForAnActionDueRightAfterTheRunningOne() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let limiter = RateLimiter(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
    let log = Recorder<String>()
    let release = Gate()
    limiter.execute {
      await release.opened()
      log.record("a returns")
    }
    limiter.execute { @Sendable () async in log.record("b") }
    #expect(limiter.flush())  // "b" is due now, right after "a"
    let idle = Task.immediate {
      await limiter.waitUntilIdle()
      log.record("idle")
    }
    release.open()
    await value(of: idle)
    #expect(log.all == ["a returns", "b", "idle"])
    limiter.cancel()
  }

  @Test func aDebouncersWaitUntilIdleWaitsForAFlushedAction() async {
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let debouncer = Debouncer(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
    let log = Recorder<String>()
    let release = Gate()
    await debouncer.waitUntilIdle()  // nothing ran yet: at once
    debouncer.execute {
      log.record("a")
      await release.opened()
      log.record("a returns")
    }
    let before = Task.immediate {
      await debouncer.waitUntilIdle()  // "a" waits for a quiet interval: it does not count
      log.record("idle before the flush")
    }
    await value(of: before)
    #expect(debouncer.flush())
    let idle = Task.immediate {
      await debouncer.waitUntilIdle()
      log.record("idle")
    }
    #expect(log.all == ["idle before the flush", "a"])
    release.open()
    await value(of: idle)
    #expect(log.all == ["idle before the flush", "a", "a returns", "idle"])
  }

  @Test func aCancelledWaitUntilIdleReturnsWhileTheActionRuns() async {
    let limiter = RateLimiter(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
    let running = Gate()
    let release = Gate()
    limiter.execute {
      running.open()
      await release.opened()
    }
    await running.opened()
    let waiting = Task { await limiter.waitUntilIdle() }
    waiting.cancel()  // before or while it waits: it returns either way
    await value(of: waiting)
    #expect(!release.isOpen)
    release.open()
    await limiter.waitUntilIdle()
  }

  @Test(arguments: ["RateLimiter", "Debouncer"])
  func waitingUntilIdleFromTheRunningActionIsAProgrammerError(limiter: String) async throws {
    let result = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { [limiter] in
      exitSuccessfullyIfStillRunning()  // a missed trap would hang: fail instead
      if limiter == "RateLimiter" {
        let limiter = RateLimiter(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
        limiter.execute { await limiter.waitUntilIdle() }
      } else {
        let debouncer = Debouncer(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
        debouncer.execute { await debouncer.waitUntilIdle() }
        debouncer.flush()
      }
      await Gate().opened()
    }
    #expect(
      String(decoding: result.standardErrorContent, as: UTF8.self).contains(
        "\(limiter).waitUntilIdle(): called from the action that is running, which would wait "
          + "for its own end"))
  }

  // On a clock, where each action has a task of its own.

  @Test(arguments: ["synchronous", "asynchronous"])
  func anActionThatWaitedForTheRunningOneRunsInItsOwnTaskWithItsCallersValues(
    kind: String
  ) async {
    // "b" is passed while "a" runs on a quiescent limiter, so it must run now: it waits for "a"
    // and then runs in the task that its own `execute` made, not in the task of "a".
    let limiter = RateLimiter(interval: .seconds(1), clock: StepClock())
    let seen = Recorder<String>()
    let tasks = Recorder<Int?>()
    let running = Gate()
    let release = Gate()
    Scope.$name.withValue("a") {
      limiter.execute {
        tasks.record(currentTaskNumber())
        running.open()
        await release.opened()
      }
    }
    await running.opened()
    limiter.cancel()  // quiescent while "a" runs
    Scope.$name.withValue("b") {
      let b: @Sendable () -> Void = {
        seen.record(Scope.name)
        tasks.record(currentTaskNumber())
      }
      if kind == "synchronous" {
        limiter.execute(b)
      } else {
        limiter.execute { @Sendable () async in b() }
      }
    }
    #expect(seen.all == [])  // waits for "a"
    release.open()
    await limiter.waitUntilIdle()
    #expect(seen.all == ["b"])
    let (a, b) = (tasks.all[0], tasks.all[1])
    #expect(a != nil && b != nil && a != b)
  }

  @Test func aClockLimitersDroppedActionIsReleasedInTheCallThatDroppedIt() {
    // What a kept action captured is gone when the `execute` that replaced it, or the
    // `cancel()` that dropped it, returns: no task made for the action still holds it.
    let limiter = RateLimiter(interval: .seconds(1), clock: StepClock())
    limiter.execute {}  // runs at once; the next ones are kept
    weak var replaced: Canary?
    weak var cancelled: Canary?
    do {
      let canary = Canary()
      replaced = canary
      limiter.execute { withExtendedLifetime(canary) {} }
    }
    do {
      let canary = Canary()
      cancelled = canary
      limiter.execute { @Sendable () async in withExtendedLifetime(canary) {} }
    }
    #expect(replaced == nil)
    #expect(cancelled != nil)  // kept
    limiter.cancel()
    #expect(cancelled == nil)
  }

  @Test func aClockDebouncersDroppedActionIsReleasedInTheCallThatDroppedIt() {
    // What a waiting action captured is gone when the `execute` that replaced it, or the
    // `cancel()` that dropped it, returns: no task made for the action still holds it.
    let debouncer = Debouncer(interval: .seconds(1), clock: StepClock())
    weak var replaced: Canary?
    weak var cancelled: Canary?
    do {
      let canary = Canary()
      replaced = canary
      debouncer.execute { @Sendable () async in withExtendedLifetime(canary) {} }
    }
    do {
      let canary = Canary()
      cancelled = canary
      debouncer.execute { withExtendedLifetime(canary) {} }
    }
    #expect(replaced == nil)
    #expect(cancelled != nil)  // waiting
    debouncer.cancel()
    #expect(cancelled == nil)
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
