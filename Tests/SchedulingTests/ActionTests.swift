import Testing
import TinyTestSupport
import TinyWaiting

@testable import TinyScheduling

/// A task-local value of the tests' own, to see which code's values an action reads.
enum Scope {
  @TaskLocal static var name = "none"
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ActionTests {
  @Test func aCarriedActionRunsInTheTaskMadeWhereItWasPassed() async {
    let finished = Waiter()
    let seen = Recorder<String>()
    let action = Scope.$name.withValue("execute") {
      Action(sync: nil, async: { seen.record(Scope.name) }, carried: true) { finished.finish() }
    }
    #expect(await onNewThread { action.run(here: false) } == false)  // a thread out of scope
    #expect(await finished.wait(timeout: helperTimeout))
    #expect(seen.all == ["execute"])
  }

  @Test func aCarriedSynchronousActionRunsInTheUsersCallAndItsTaskEnds() async {
    let released = Waiter()
    let seen = Recorder<String>()
    let called = Recorder<String>()
    do {
      let marker = OnDeinit { released.finish() }
      let action = Scope.$name.withValue("execute") {
        Action(
          sync: { withExtendedLifetime(marker) { seen.record(Scope.name) } }, async: {},
          carried: true
        ) { called.record("finished") }
      }
      Scope.$name.withValue("flush") { #expect(action.run(here: true)) }
    }
    #expect(seen.all == ["flush"])  // in the call, with the caller's values
    #expect(await released.wait(timeout: helperTimeout))  // the unused task ended
    #expect(called.all == [])
  }

  @Test func aDroppedCarriedActionEndsItsTaskWithoutRunning() async {
    let released = Waiter()
    let ran = Recorder<String>()
    do {
      let marker = OnDeinit { released.finish() }
      _ = Action(
        sync: nil, async: { withExtendedLifetime(marker) { ran.record("ran") } }, carried: true
      ) { ran.record("finished") }
    }
    #expect(await released.wait(timeout: helperTimeout))
    #expect(ran.all == [])
  }

  @Test func anAsyncActionCountsAsRunningUntilItReturns() async {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let running = Gate()
    let release = Gate()
    let lastRan = Gate()
    limiter.execute {
      log.record("a")
      running.open()
      await release.opened()
      log.record("a returns")
    }
    await running.opened()
    limiter.execute {
      log.record("b")
      lastRan.open()
    }
    #expect(launcher.fire())  // the tick comes while "a" runs: skipped
    #expect(log.all == ["a"])
    #expect(limiter.flush())  // "b" runs right after "a" returns
    #expect(log.all == ["a"])
    release.open()
    await lastRan.opened()
    #expect(log.all == ["a", "a returns", "b"])
  }

  @Test func aDebouncersTickWhileAnAsyncActionRunsIsSkipped() async {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let running = Gate()
    let release = Gate()
    let lastRan = Gate()
    debouncer.execute {
      log.record("a")
      running.open()
      await release.opened()
      log.record("a returns")
    }
    launcher.fire()
    await running.opened()
    debouncer.execute {
      log.record("b")
      lastRan.open()
    }
    #expect(launcher.fire())  // skipped: "a" runs
    #expect(launcher.isActive)  // so the launcher ticks on
    #expect(debouncer.flush())
    release.open()
    await lastRan.opened()
    #expect(log.all == ["a", "a returns", "b"])
  }

  @Test func withALauncherAnAsyncActionRunsInATaskMadeWhereItRuns() async {
    // At once: in a task made by `execute`, with its values. At a tick: in a task made by the
    // tick, with the ticking thread's values (none here).
    let seen = Recorder<String>()
    let atOnce = RateLimiter(interval: .seconds(1), launcher: FakePeriodicTaskLauncher())
    let first = Gate()
    Scope.$name.withValue("execute") {
      atOnce.execute { @Sendable () async in
        seen.record(Scope.name)
        first.open()
      }
    }
    await first.opened()
    let launcher = FakePeriodicTaskLauncher()
    let atATick = RateLimiter(interval: .seconds(1), launcher: launcher)
    let kept = Gate()
    atATick.execute {}  // runs at once, here
    Scope.$name.withValue("kept") {
      atATick.execute { @Sendable () async in
        seen.record(Scope.name)
        kept.open()
      }
    }
    #expect(await onNewThread { launcher.fire() })
    await kept.opened()
    #expect(seen.all == ["execute", "none"])
    atOnce.cancel()
    atATick.cancel()
  }
}
