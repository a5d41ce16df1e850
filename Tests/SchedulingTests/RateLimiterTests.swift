import Foundation
import Testing
import TinyScheduling
import TinyWaiting
import TinyTestSupport

/// The rate limiter driven by a fake launcher. Scripts use the tokens of `run(_:on:launcher:)`
/// (Support/Helpers.swift): `a` executes an action named "a", `|` fires the launcher, `C`
/// cancels, `F` flushes; results list the actions as they ran, `|` for a tick of an active
/// launcher, `-` for a tick of an inactive one, `F`/`f` for a flush that found / did not find
/// a kept action.
@Suite struct RateLimiterTests {
  @Test(
    arguments: [
      ("", ""),
      ("|", "-"),
      ("F", "f"),
      ("a", "a"),
      ("a | |", "a | -"),
      ("a b c | | |", "a | c | -"),
      ("a b | c d | |", "a | b | d |"),
      ("a | b", "a | b"),
      ("a | b c |", "a | b | c"),
      ("a b C |", "a -"),
      ("a b C c", "a c"),
      ("a b F |", "a b F |"),
      ("a F |", "a f |"),
    ] as [(String, String)])
  func runsTheFirstActionAtOnceAndTheLatestAtEachTick(script: String, expected: String) {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .milliseconds(250), launcher: launcher)
    #expect(run(script, on: limiter, launcher: launcher) == expected)
  }

  @Test func setsTheLaunchersIntervalAndStartsItOncePerBurst() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .milliseconds(250), launcher: launcher)
    #expect(limiter.interval == .milliseconds(250))
    #expect(launcher.interval == .milliseconds(250))
    #expect(!launcher.isActive)
    _ = run("a b c d | e | |  f |", on: limiter, launcher: launcher)
    #expect(launcher.startCount == 2)
    #expect(launcher.stopCount == 2)
  }

  @Test func anActionMayExecuteCancelAndFlushTheLimiter() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    limiter.execute {
      log.record("a")
      limiter.execute { log.record("kept") }  // active: kept for the next tick
    }
    #expect(log.all == ["a"])
    limiter.execute {
      log.record("b")
      limiter.execute { log.record("c") }
      log.record(limiter.flush() ? "flushed" : "not flushed")  // c runs after b returns
      log.record("b ends")
    }
    launcher.fire()
    #expect(log.all == ["a", "b", "flushed", "b ends", "c"])
    limiter.execute {
      log.record("d")
      limiter.cancel()
    }
    launcher.fire()  // d
    #expect(!launcher.isActive)
    #expect(log.all.suffix(1) == ["d"])
  }

  @Test func anExecuteAfterACancelInsideAnActionRunsRightAfterIt() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    limiter.execute {
      log.record("a")
      limiter.cancel()
      limiter.execute { log.record("b") }  // quiescent, but "a" runs: b follows it
      log.record("a ends")
    }
    #expect(log.all == ["a", "a ends", "b"])
    #expect(launcher.isActive)
  }

  @Test func releasesItselfEvenWhileActive() {
    // The classic limiter captured itself strongly in the launcher's task and never went away.
    let launcher = FakePeriodicTaskLauncher()
    weak var weakLimiter: RateLimiter?
    weak var kept: Canary?
    do {
      let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
      weakLimiter = limiter
      limiter.execute {}
      let canary = Canary()
      kept = canary
      limiter.execute { _ = canary }
      #expect(launcher.isActive)
    }
    #expect(weakLimiter == nil)
    #expect(kept == nil)  // the kept action is dropped
    #expect(!launcher.isActive)  // and the launcher stopped
    #expect(!launcher.fire())
  }

  @Test func releasesActionsOnceTheyRanOrWereCancelled() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    weak var ran: Canary?
    weak var cancelled: Canary?
    limiter.execute {}
    do {
      let canary = Canary()
      ran = canary
      limiter.execute { _ = canary }
    }
    #expect(ran != nil)
    launcher.fire()
    #expect(ran == nil)
    do {
      let canary = Canary()
      cancelled = canary
      limiter.execute { _ = canary }
    }
    limiter.cancel()
    #expect(cancelled == nil)
  }

  @Test func aDefaultLimiterAndItsLauncherGoAwayWhileActive() {
    weak var weakLimiter: RateLimiter?
    do {
      let limiter = RateLimiter(interval: .seconds(10))
      weakLimiter = limiter
      limiter.execute {}
      limiter.execute {}
    }
    #expect(weakLimiter == nil)
  }

  @Test func withTheRealLauncherTheLatestActionRunsAtTheNextTick() async {
    // Ticks run on `queue`, held until the three executes are made, so however slowly this
    // thread runs, no tick can come between them.
    let queue = DispatchQueue(label: "test.rate-limiter.ticks")
    let limiter = RateLimiter(
      interval: .milliseconds(20), launcher: DefaultPeriodicTaskLauncher(queue: queue))
    let log = Recorder<String>()
    let latestRan = Waiter()
    queue.suspend()
    limiter.execute { log.record("a") }
    #expect(log.all == ["a"])  // at once, on this thread
    limiter.execute { log.record("b") }
    limiter.execute {
      log.record("c")
      latestRan.finish()
    }
    queue.resume()
    #expect(await latestRan.wait(timeout: .seconds(10)))
    #expect(log.all == ["a", "c"])
  }

  @Test func aNonPositiveIntervalIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) {
      _ = RateLimiter(interval: .zero)
    }
    await #expect(processExitsWith: .failure) {
      _ = RateLimiter(interval: .seconds(-1), launcher: FakePeriodicTaskLauncher())
    }
  }

  @Test func stressFourThreadsExecutingWhileTheLauncherFires() async {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .milliseconds(1), launcher: launcher)
    let probe = StressProbe()
    let result = await stress(probe: probe, launcher: launcher) { limiter.execute($0) }
    expectStressInvariants(result, probe: probe, launcher: launcher)
    // Every action that ran at once started the launcher; every other one ran on a tick.
    #expect(probe.runs.count == launcher.startCount + probe.runsOnFiringThread)
    #expect(launcher.startCount == launcher.stopCount)
    // Quiescent again: the next action runs at once.
    limiter.execute { probe.ran(thread: 9, index: 0) }
    #expect(probe.runs.last?.thread == 9)
  }
}
