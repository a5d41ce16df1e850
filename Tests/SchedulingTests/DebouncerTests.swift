import Foundation
import Testing
import TinyScheduling
import TinyWaiting
import TinyTestSupport

/// The debouncer driven by a fake launcher, in the script tokens of `run(_:on:launcher:)`
/// (Support/Helpers.swift). Each execute restarts the launcher, so a tick stands for "one full
/// interval without a new action".
@Suite struct DebouncerTests {
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
    #expect(await ran.wait(timeout: .seconds(10)))
    #expect(log.all == ["b"])
    let delay = ranAt.all.first.map { $0 - lastExecute }
    #expect(delay.map { $0 >= .milliseconds(20) - .microseconds(500) } == true)
  }

  @Test func aNonPositiveIntervalIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) {
      _ = Debouncer(interval: .zero)
    }
    await #expect(processExitsWith: .failure) {
      _ = Debouncer(interval: .nanoseconds(-1), launcher: FakePeriodicTaskLauncher())
    }
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
