import Foundation
import Testing
import TinyScheduling
import TinyWaiting
import TinyTestSupport

/// The debouncer driven by a fake launcher, in the script tokens of `run(_:on:launcher:)`
/// (Support/Helpers.swift). Each execute restarts the launcher, so a tick stands for "one full
/// interval without a new action".
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DebouncerTests {
  @Test(
    arguments: [
      ("", ""),
      ("|", "-"),
      ("F", "f"),
      ("a", ""),
      ("a |", "| a"),
      ("a | |", "| a -"),
      ("a b c |", "| c"),
      ("a | b |", "| a | b"),
      ("a b | c | |", "| b | c -"),
      ("a C |", "-"),
      ("a C b |", "| b"),
      ("a F |", "a F -"),
      ("a b F", "b F"),
    ] as [(String, String)])
  func runsTheLatestActionAtTheFirstTickAfterIt(script: String, expected: String) {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .milliseconds(300), launcher: launcher)
    #expect(run(script, on: debouncer, launcher: launcher) == expected)
  }

  @Test func everyActionRestartsTheLaunchersInterval() {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .milliseconds(300), launcher: launcher)
    #expect(debouncer.interval == .milliseconds(300))
    #expect(launcher.interval == .milliseconds(300))
    _ = run("a b c", on: debouncer, launcher: launcher)
    #expect(launcher.isActive)
    #expect(launcher.startCount == 3)  // a starts, b and c restart (stop, then start)
    #expect(launcher.stopCount == 2)
    _ = run("|", on: debouncer, launcher: launcher)
    #expect(!launcher.isActive)
    #expect(launcher.stopCount == 3)
  }

  @Test func anActionMayExecuteCancelAndFlushTheDebouncer() {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    debouncer.execute {
      log.record("a")
      debouncer.execute { log.record("b") }
      log.record(debouncer.flush() ? "flushed" : "not flushed")  // b runs after a returns
    }
    launcher.fire()
    #expect(log.all == ["a", "flushed", "b"])
    #expect(!launcher.isActive)
    debouncer.execute {
      log.record("c")
      debouncer.execute { log.record("d") }
      debouncer.cancel()  // d never runs
    }
    launcher.fire()
    #expect(log.all == ["a", "flushed", "b", "c"])
    #expect(!launcher.isActive)
    #expect(!launcher.fire())
  }

  @Test func releasesItselfAndItsWaitingActionEvenWhileActive() {
    let launcher = FakePeriodicTaskLauncher()
    weak var weakDebouncer: Debouncer?
    weak var waiting: Canary?
    do {
      let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
      weakDebouncer = debouncer
      let canary = Canary()
      waiting = canary
      debouncer.execute { _ = canary }
      #expect(launcher.isActive)
    }
    #expect(weakDebouncer == nil)
    #expect(waiting == nil)
    #expect(!launcher.isActive)
  }

  @Test func withTheRealLauncherTheLatestActionRunsOneIntervalAfterIt() async {
    // Ticks run on `queue`, held until both executes are made, so however slowly this thread
    // runs, the first action cannot run in between.
    let queue = DispatchQueue(label: "test.debouncer.ticks")
    let debouncer = Debouncer(
      interval: .milliseconds(20), launcher: DefaultPeriodicTaskLauncher(queue: queue))
    let clock = ContinuousClock()
    let log = Recorder<String>()
    let ranAt = Recorder<ContinuousClock.Instant>()
    let ran = Waiter()
    queue.suspend()
    debouncer.execute { log.record("a") }
    let lastExecute = clock.now
    debouncer.execute {
      ranAt.record(clock.now)
      log.record("b")
      ran.finish()
    }
    #expect(log.all.isEmpty)
    queue.resume()
    #expect(await ran.wait(timeout: helperTimeout))
    #expect(log.all == ["b"])
    let delay = ranAt.all.first.map { $0 - lastExecute }
    #expect(delay.map { $0 >= .milliseconds(20) - .microseconds(500) } == true)
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = Debouncer(interval: .zero) }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "Debouncer(interval:launcher:): interval must be positive, got 0.0 seconds"))
    let negative = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = Debouncer(interval: .nanoseconds(-1), launcher: FakePeriodicTaskLauncher()) }
    #expect(
      String(decoding: negative.standardErrorContent, as: UTF8.self).contains(
        "Debouncer(interval:launcher:): interval must be positive, got -1e-09 seconds"))
  }

  /// What each drop, then each call from the dropped action's `deinit`, then one tick, leaves
  /// in the log.
  static let reentryOutcomes: [String: [String]] = [
    "replaced execute": ["d"],  // d replaces b
    "replaced cancel": [],  // b is dropped too
    "replaced flush": ["b", "flushed"],  // b runs inside the deinit
    "cancelled execute": ["d"],
    "cancelled cancel": [],
    "cancelled flush": ["not flushed"],
    "waitingCancelled execute": ["a", "d"],
    "waitingCancelled cancel": ["a"],
    "waitingCancelled flush": ["a", "not flushed"],
  ]

  @Test(arguments: LimiterDrop.allCases, LimiterCall.allCases)
  func aDroppedActionsDeinitMayCallTheDebouncer(drop: LimiterDrop, call: LimiterCall) {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let deinits = Counter()
    // Only the debouncer holds the dropped action: nothing else keeps it alive.
    let onDeinit: @Sendable () -> Void = { [weak debouncer] in
      deinits.increment()
      if let debouncer { call.make(on: debouncer, log: log) }
    }
    switch drop {
    case .replaced:
      debouncer.execute(droppable(onDeinit: onDeinit))
      debouncer.execute { log.record("b") }
    case .cancelled:
      debouncer.execute(droppable(onDeinit: onDeinit))
      debouncer.cancel()
    case .waitingCancelled:
      debouncer.execute {
        log.record("a")
        debouncer.execute(droppable(onDeinit: onDeinit))
        debouncer.flush()  // "a" runs: the dropped action waits for it
        debouncer.cancel()  // drops it
      }
      launcher.fire()  // runs a
    }
    launcher.fire()
    #expect(deinits.value == 1)
    #expect(log.all == Self.reentryOutcomes["\(drop) \(call)"])
  }

  @Test(arguments: LauncherReentry.allCases)
  func aWaitingActionDroppedByReleasingTheDebouncerMayUseTheLauncher(call: LauncherReentry) {
    let launcher = FakePeriodicTaskLauncher()
    let log = Recorder<String>()
    let deinits = Counter()
    do {
      let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
      debouncer.execute(
        droppable(onDeinit: {
          deinits.increment()
          call.make(on: launcher, log: log)
          launcher.fire()  // the task refers to the debouncer weakly: nothing runs
        }))
    }
    #expect(deinits.value == 1)
    #expect(launcher.isActive == (call == .start))
    #expect(log.all == (call == .isActive ? ["inactive"] : []))
  }

  @Test(arguments: LimiterCall.allCases)
  func aLauncherMayCallBackIntoTheDebouncerFromStart(call: LimiterCall) {
    let launcher = ScriptedLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let starts = Counter()
    launcher.onStart { [weak debouncer] in
      if starts.increment() == 1, let debouncer { call.make(on: debouncer, log: log) }
    }
    debouncer.execute { log.record("a") }
    launcher.fire()
    let expected: [LimiterCall: (log: [String], calls: [String])] = [
      .execute: (["d"], ["every", "start", "stop", "start", "stop"]),  // d restarts
      .cancel: ([], ["every", "start", "stop"]),
      .flush: (["a", "flushed"], ["every", "start", "stop"]),
    ]
    #expect(log.all == expected[call]?.log)
    #expect(launcher.calls == expected[call]?.calls)
  }

  @Test func aTickWhileAnActionRunsOnAnotherThreadIsSkipped() {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("a", log: log, threads: threads)
    debouncer.execute(held.action)
    let ticking = startThread { launcher.fire() }
    held.running.wait()
    debouncer.execute(recording("b", log: log, threads: threads))
    #expect(launcher.fire())  // the tick comes while "a" runs: skipped
    #expect(log.all == ["a"])
    held.finish.open()
    ticking.wait()
    #expect(log.all == ["a"])
    #expect(launcher.isActive)
    launcher.fire()
    #expect(log.all == ["a", "b"])
  }

  @Test func aCancelWhileATickRunsAnActionDropsTheOneWaitingMeanwhile() {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("a", log: log, threads: threads)
    debouncer.execute(held.action)
    let ticking = startThread { launcher.fire() }
    held.running.wait()
    debouncer.execute(recording("b", log: log, threads: threads))
    debouncer.cancel()
    #expect(!launcher.isActive)
    held.finish.open()
    ticking.wait()
    #expect(!launcher.fire())
    #expect(log.all == ["a"])
  }

  @Test func aFlushWhileAnActionRunsOnAnotherThreadRunsRightAfterItOnItsThread() {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .seconds(1), launcher: launcher)
    let log = Recorder<String>()
    let threads = Recorder<pthread_t>()
    let held = HeldAction("a", log: log, threads: threads)
    debouncer.execute(held.action)
    let ticking = startThread { launcher.fire() }
    held.running.wait()
    debouncer.execute(recording("b", log: log, threads: threads))
    #expect(debouncer.flush())  // returns at once
    #expect(log.all == ["a"])
    #expect(!launcher.isActive)
    held.finish.open()
    ticking.wait()
    #expect(log.all == ["a", "b"])
    let all = threads.all
    #expect(pthread_equal(all[0], all[1]) != 0)
  }

  @Test func stressFourThreadsExecutingWhileTheLauncherFires() async {
    let launcher = FakePeriodicTaskLauncher()
    let debouncer = Debouncer(interval: .milliseconds(1), launcher: launcher)
    let probe = StressProbe()
    let result = await stress(probe: probe, launcher: launcher) { debouncer.execute($0) }
    expectStressInvariants(result, probe: probe, launcher: launcher)
    #expect(probe.runs.count == probe.runsOnFiringThread)  // a debouncer never runs at once
  }
}
