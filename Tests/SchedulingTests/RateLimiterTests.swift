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
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct RateLimiterTests {
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

  @Test func withTheRealLauncherAnIntervalPastInt64SecondsRunsTheFirstActionAtOnce() {
    let limiter = RateLimiter(interval: .seconds(1e20))
    let log = Recorder<String>()
    limiter.execute { log.record("first") }
    limiter.execute { log.record("kept") }
    #expect(log.all == ["first"])
    limiter.cancel()
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
    #expect(await latestRan.wait(timeout: helperTimeout))
    #expect(log.all == ["a", "c"])
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = RateLimiter(interval: .zero) }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "RateLimiter(interval:launcher:): interval must be positive, got 0.0 seconds"))
    let negative = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = RateLimiter(interval: .seconds(-1), launcher: FakePeriodicTaskLauncher()) }
    #expect(
      String(decoding: negative.standardErrorContent, as: UTF8.self).contains(
        "RateLimiter(interval:launcher:): interval must be positive, got -1.0 seconds"))
  }

  /// What each drop, then each call from the dropped action's `deinit`, then one tick, leaves
  /// in the log.
  static let reentryOutcomes: [String: [String]] = [
    "replaced execute": ["a", "d"],  // d replaces b, and the tick runs it
    "replaced cancel": ["a"],  // b is dropped too
    "replaced flush": ["a", "b", "flushed"],  // b runs inside the deinit
    "cancelled execute": ["a", "d"],  // quiescent: d runs at once
    "cancelled cancel": ["a"],
    "cancelled flush": ["a", "not flushed"],
    "waitingCancelled execute": ["a", "d"],  // d waits for a, and runs right after it
    "waitingCancelled cancel": ["a"],
    "waitingCancelled flush": ["a", "not flushed"],
  ]

  @Test(arguments: LimiterDrop.allCases, LimiterCall.allCases)
  func aDroppedActionsDeinitMayCallTheLimiter(drop: LimiterDrop, call: LimiterCall) {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let deinits = Counter()
    // Only the limiter holds the dropped action: nothing else keeps it alive.
    let onDeinit: @Sendable () -> Void = { [weak limiter] in
      deinits.increment()
      if let limiter { call.make(on: limiter, log: log) }
    }
    switch drop {
    case .replaced:
      limiter.execute { log.record("a") }
      limiter.execute(droppable(onDeinit: onDeinit))
      limiter.execute { log.record("b") }
    case .cancelled:
      limiter.execute { log.record("a") }
      limiter.execute(droppable(onDeinit: onDeinit))
      limiter.cancel()
    case .waitingCancelled:
      limiter.execute {
        log.record("a")
        limiter.cancel()
        limiter.execute(droppable(onDeinit: onDeinit))  // quiescent, but "a" runs: it waits for a
        limiter.cancel()  // drops it
      }
    }
    launcher.fire()
    #expect(deinits.value == 1)
    #expect(log.all == Self.reentryOutcomes["\(drop) \(call)"])
  }

  @Test(arguments: LauncherReentry.allCases)
  func aKeptActionDroppedByReleasingTheLimiterMayUseTheLauncher(call: LauncherReentry) {
    let launcher = FakePeriodicTaskLauncher()
    let log = Recorder<String>()
    let deinits = Counter()
    do {
      let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
      limiter.execute {}
      limiter.execute(
        droppable(onDeinit: {
          deinits.increment()
          call.make(on: launcher, log: log)
          launcher.fire()  // the task refers to the limiter weakly: nothing runs
        }))
    }
    #expect(deinits.value == 1)
    #expect(launcher.isActive == (call == .start))
    #expect(log.all == (call == .isActive ? ["inactive"] : []))
  }

  @Test(arguments: LimiterCall.allCases)
  func aLauncherMayCallBackIntoTheLimiterFromStart(call: LimiterCall) {
    let launcher = ScriptedLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let starts = Counter()
    launcher.onStart { [weak limiter] in
      if starts.increment() == 1, let limiter { call.make(on: limiter, log: log) }
    }
    limiter.execute { log.record("a") }  // starts the launcher first, then runs
    launcher.fire()
    let expected: [LimiterCall: (log: [String], calls: [String])] = [
      .execute: (["a", "d"], ["every", "start"]),  // active: d is kept for the tick
      .cancel: (["a"], ["every", "start", "stop"]),  // the stop follows the start
      .flush: (["not flushed", "a"], ["every", "start", "stop"]),  // the tick finds none
    ]
    #expect(log.all == expected[call]?.log)
    #expect(launcher.calls == expected[call]?.calls)
  }

  @Test func aLauncherMayCallBackIntoTheLimiterFromStop() {
    let launcher = ScriptedLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    limiter.execute { log.record("a") }
    launcher.onStop { [weak limiter] in
      launcher.onStop(nil)
      limiter?.execute { log.record("b") }  // quiescent again: runs at once, starts again
    }
    launcher.fire()  // nothing kept: stops
    #expect(log.all == ["a", "b"])
    #expect(launcher.calls == ["every", "start", "stop", "start"])
    #expect(launcher.isActive)
  }

  @Test func whileAnotherThreadCallsTheLauncherItsCommandsFollowInOrder() {
    // The launcher's start() is held on one thread; meanwhile cancel() and execute() return at
    // once, their stop and start left to that thread, in order, after the start. No kept action
    // runs after cancel() returns, though the launcher still ticks until the stop.
    let launcher = ScriptedLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let inStart = Gate()
    let proceed = Gate()
    launcher.onStart {
      inStart.open()
      proceed.wait()
    }
    let first = startThread { limiter.execute { log.record("a") } }
    inStart.wait()
    launcher.onStart(nil)
    limiter.execute { log.record("kept") }
    limiter.cancel()
    #expect(launcher.calls == ["every", "start"])
    #expect(launcher.isActive)
    launcher.fire()  // a tick that arrives quiescent does nothing
    limiter.execute { log.record("b") }  // quiescent: "at once", right after a; starts again
    #expect(launcher.calls == ["every", "start"])
    proceed.open()
    first.wait()
    #expect(launcher.calls == ["every", "start", "stop", "start"])
    #expect(launcher.isActive)
    #expect(log.all == ["a", "b"])
  }

  @Test func aTickWhileAnActionRunsOnAnotherThreadIsSkipped() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("a", log: log, threads: threads)
    let first = startThread { limiter.execute(held.action) }
    held.running.wait()
    limiter.execute(recording("b", log: log, threads: threads))
    #expect(launcher.fire())  // the tick comes while "a" runs: skipped
    #expect(log.all == ["a"])
    held.finish.open()
    first.wait()
    #expect(log.all == ["a"])  // b waits for the next tick
    launcher.fire()
    #expect(log.all == ["a", "b"])
    #expect(pthread_equal(threads.all[1], pthread_self()) != 0)  // on the ticking thread
  }

  @Test func aCancelWhileATickRunsAnActionDropsTheOneKeptMeanwhile() {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("k1", log: log, threads: threads)
    limiter.execute { log.record("a") }
    limiter.execute(held.action)
    let ticking = startThread { launcher.fire() }
    held.running.wait()
    limiter.execute(recording("k2", log: log, threads: threads))  // kept during the tick
    limiter.cancel()
    #expect(!launcher.isActive)
    held.finish.open()
    ticking.wait()
    #expect(!launcher.fire())
    #expect(log.all == ["a", "k1"])
  }

  @Test(arguments: ["flush", "quiescent execute"])
  func anActionThatMustRunNowWhileAnotherRunsRunsRightAfterItOnItsThread(how: String) {
    let launcher = FakePeriodicTaskLauncher()
    let limiter = RateLimiter(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("k1", log: log, threads: threads)
    limiter.execute { log.record("a") }
    limiter.execute(held.action)
    let ticking = startThread { launcher.fire() }
    held.running.wait()
    if how == "flush" {
      limiter.execute(recording("now", log: log, threads: threads))
      #expect(limiter.flush())  // returns at once
    } else {
      limiter.cancel()
      limiter.execute(recording("now", log: log, threads: threads))  // returns at once
    }
    #expect(log.all == ["a", "k1"])
    held.finish.open()
    ticking.wait()
    #expect(log.all == ["a", "k1", "now"])
    let all = threads.all
    #expect(pthread_equal(all[0], all[1]) != 0)  // on the thread that ran k1
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
