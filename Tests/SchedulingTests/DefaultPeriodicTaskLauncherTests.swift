import Dispatch
import Foundation
import Testing
import TinyScheduling
import TinyWaiting
import TinyTestSupport

/// The real launcher, with real time: generous timeouts, and no assertion that a busy machine
/// could break (ticks may come late, never early).
@Suite struct DefaultPeriodicTaskLauncherTests {
  @Test func ticksEveryIntervalFromStartWithoutARunLoop() async {
    let launcher = DefaultPeriodicTaskLauncher()
    let clock = ContinuousClock()
    let times = Recorder<ContinuousClock.Instant>()
    let fiveTicks = Waiter(count: 5)
    launcher.every(.milliseconds(10)) {
      times.record(clock.now)
      fiveTicks.finish()
    }
    let start = clock.now
    launcher.start()
    #expect(launcher.isActive)
    #expect(await fiveTicks.wait(timeout: .seconds(10)))
    launcher.stop()
    // Tick k comes no earlier than k intervals after start (deadlines are absolute).
    for (index, time) in times.all.prefix(5).enumerated() {
      #expect(time - start >= .milliseconds(10 * (index + 1)) - .microseconds(500))
    }
  }

  @Test func runsTheTaskOnTheGivenQueue() async {
    let queue = DispatchQueue(label: "test.ticks")
    let key = DispatchSpecificKey<Bool>()
    queue.setSpecific(key: key, value: true)
    let launcher = DefaultPeriodicTaskLauncher(queue: queue)
    let onQueue = Recorder<Bool>()
    let ticked = Waiter(count: 2)
    launcher.every(.milliseconds(5)) {
      onQueue.record(DispatchQueue.getSpecific(key: key) == true)
      ticked.finish()
    }
    launcher.start()
    #expect(await ticked.wait(timeout: .seconds(10)))
    launcher.stop()
    #expect(onQueue.all.allSatisfy { $0 })
  }

  @Test func noTickStartsAfterStopReturns() async {
    let queue = DispatchQueue(label: "test.ticks")
    let launcher = DefaultPeriodicTaskLauncher(queue: queue)
    let ticks = Counter()
    let threeTicks = Waiter(count: 3)
    launcher.every(.milliseconds(1)) {
      ticks.increment()
      threeTicks.finish()
    }
    launcher.start()
    #expect(await threeTicks.wait(timeout: .seconds(10)))
    launcher.stop()
    #expect(!launcher.isActive)
    queue.sync {}  // a tick that started before stop() returned has finished now
    let afterStop = ticks.value
    #expect(await !Waiter().wait(timeout: .milliseconds(30)))  // 30 intervals pass
    #expect(ticks.value == afterStop)
  }

  @Test func theTaskMayStopTheLauncherWithoutDeadlock() async {
    let launcher = DefaultPeriodicTaskLauncher()
    let ticks = Counter()
    let stopped = Waiter()
    launcher.every(.milliseconds(1)) { [weak launcher] in
      if ticks.increment() == 2 {
        launcher?.stop()
        stopped.finish()
      }
    }
    launcher.start()
    #expect(await stopped.wait(timeout: .seconds(10)))
    #expect(!launcher.isActive)
    #expect(await !Waiter().wait(timeout: .milliseconds(20)))
    #expect(ticks.value == 2)
  }

  @Test func everyReplacesTheTaskWhileActive() async {
    let launcher = DefaultPeriodicTaskLauncher()
    let log = Recorder<String>()
    let first = Waiter()
    let second = Waiter(count: 2)
    launcher.every(.milliseconds(2)) {
      log.record("old")
      first.finish()
    }
    launcher.start()
    #expect(await first.wait(timeout: .seconds(10)))
    launcher.every(.milliseconds(2)) {
      log.record("new")
      second.finish()
    }
    #expect(await second.wait(timeout: .seconds(10)))
    launcher.stop()
    let all = log.all
    let firstNew = all.firstIndex(of: "new") ?? all.endIndex
    #expect(!all[firstNew...].contains("old"))
  }

  @Test func startedBeforeEveryItTicksOnceItHasAnInterval() async {
    let launcher = DefaultPeriodicTaskLauncher()
    launcher.start()
    #expect(launcher.isActive)
    let ticked = Waiter()
    launcher.every(.milliseconds(2)) { ticked.finish() }
    #expect(await ticked.wait(timeout: .seconds(10)))
    launcher.stop()
  }

  @Test func releasingAnActiveLauncherStopsIt() async {
    let queue = DispatchQueue(label: "test.ticks")
    let ticks = Counter()
    let ticked = Waiter(count: 2)
    weak var weakLauncher: DefaultPeriodicTaskLauncher?
    do {
      let launcher = DefaultPeriodicTaskLauncher(queue: queue)
      weakLauncher = launcher
      launcher.every(.milliseconds(1)) {
        ticks.increment()
        ticked.finish()
      }
      launcher.start()
      #expect(await ticked.wait(timeout: .seconds(10)))
    }
    queue.sync {}  // a tick in progress held the launcher; it has finished now
    #expect(weakLauncher == nil)
    let afterRelease = ticks.value
    #expect(await !Waiter().wait(timeout: .milliseconds(20)))
    #expect(ticks.value == afterRelease)
  }

  /// Every sequence of four calls, then release: none may crash (Dispatch traps on a timer
  /// resumed twice or released while suspended), and the launcher ends in the state the last
  /// start or stop asked for.
  @Test(arguments: LauncherCall.allSequences(length: 4))
  func noOrderOfCallsCrashes(calls: [LauncherCall]) async {
    let queue = DispatchQueue(label: "test.ticks")
    var launcher: DefaultPeriodicTaskLauncher? = DefaultPeriodicTaskLauncher(queue: queue)
    for call in calls {
      call.apply(to: launcher!)
    }
    let lastSwitch = calls.last { $0 == .start || $0 == .stop }
    #expect(launcher!.isActive == (lastSwitch == .start))
    launcher = nil
    queue.sync {}
  }

  @Test func concurrentStartsStopsAndReleasesDoNotCrash() async {
    let done = Waiter(count: 4)
    for _ in 0..<4 {
      Thread {
        for round in 0..<50 {
          let launcher = DefaultPeriodicTaskLauncher()
          launcher.every(.microseconds(50)) {}
          DispatchQueue.concurrentPerform(iterations: 4) { index in
            if (index + round).isMultiple(of: 2) { launcher.start() } else { launcher.stop() }
          }
          if round.isMultiple(of: 3) { launcher.start() }
        }
        done.finish()
      }.start()
    }
    #expect(await done.wait(timeout: .seconds(60)))
  }

  @Test func aNonPositiveIntervalIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) {
      DefaultPeriodicTaskLauncher().every(.zero) {}
    }
    await #expect(processExitsWith: .failure) {
      DefaultPeriodicTaskLauncher().every(.seconds(-5)) {}
    }
  }
}

/// One call on a launcher, for the tables of call orders.
enum LauncherCall: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case start, stop, every1ms, every2ms

  var testDescription: String { rawValue }

  func apply(to launcher: DefaultPeriodicTaskLauncher) {
    switch self {
    case .start: launcher.start()
    case .stop: launcher.stop()
    case .every1ms: launcher.every(.milliseconds(1)) {}
    case .every2ms: launcher.every(.milliseconds(2)) {}
    }
  }

  /// Every sequence of `length` calls (4^length of them).
  static func allSequences(length: Int) -> [[LauncherCall]] {
    (0..<length).reduce([[]]) { sequences, _ in
      sequences.flatMap { sequence in allCases.map { sequence + [$0] } }
    }
  }
}
