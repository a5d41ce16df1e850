import Dispatch
import Foundation
import Testing
import TinyTestSupport
import TinyWaiting
import XCTest

@testable import TinyScheduling

/// The real launcher, with real time: generous timeouts, and no assertion that a busy machine
/// could break (ticks may come late, never early).
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DefaultPeriodicTaskLauncherTests {
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
    #expect(await fiveTicks.wait(timeout: helperTimeout))
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
    #expect(await ticked.wait(timeout: helperTimeout))
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
    #expect(await threeTicks.wait(timeout: helperTimeout))
    launcher.stop()
    #expect(!launcher.isActive)
    queue.sync {}  // a tick that started before stop() returned has finished now
    let afterStop = ticks.value
    await witnessTicks(30, every: .milliseconds(1), on: queue)  // 30 intervals pass
    #expect(ticks.value == afterStop)
  }

  @Test func theTaskMayStopTheLauncherWithoutDeadlock() async {
    let queue = DispatchQueue(label: "test.ticks")
    let launcher = DefaultPeriodicTaskLauncher(queue: queue)
    let ticks = Counter()
    let stopped = Waiter()
    launcher.every(.milliseconds(1)) { [weak launcher] in
      if ticks.increment() == 2 {
        launcher?.stop()
        stopped.finish()
      }
    }
    launcher.start()
    #expect(await stopped.wait(timeout: helperTimeout))
    #expect(!launcher.isActive)
    await witnessTicks(20, every: .milliseconds(1), on: queue)
    #expect(ticks.value == 2)
  }

  @Test func theTaskMayReplaceItselfAndRestartTheLauncher() async {
    let launcher = DefaultPeriodicTaskLauncher()
    let log = Recorder<String>()
    let done = Waiter()
    launcher.every(.milliseconds(2)) { [weak launcher] in
      log.record("first")
      launcher?.stop()
      launcher?.every(.milliseconds(3)) {
        log.record("second")
        done.finish()
      }
      launcher?.start()
    }
    launcher.start()
    #expect(await done.wait(timeout: helperTimeout))
    launcher.stop()
    #expect(log.all.prefix(2) == ["first", "second"])
  }

  @Test func startStopAndEveryNeverRunTheTaskThemselves() {
    let launcher = DefaultPeriodicTaskLauncher()
    let ticks = Counter()
    launcher.start()
    launcher.every(.seconds(3_600)) { ticks.increment() }
    launcher.start()
    launcher.stop()
    launcher.start()
    launcher.every(.seconds(1_800)) { ticks.increment() }
    launcher.stop()
    #expect(ticks.value == 0)
  }

  @Test func aNewIntervalWhileActiveRestartsTheGridFromNow() async {
    // The old interval is an hour: a tick within the test's bound can only come from a grid
    // that restarted at the new interval, and it comes no earlier than one new interval after
    // the call.
    let launcher = DefaultPeriodicTaskLauncher()
    let clock = ContinuousClock()
    let ticks = Recorder<ContinuousClock.Instant>()
    let ticked = Waiter()
    launcher.every(.seconds(3_600)) {}
    launcher.start()
    let timers = launcher.timersStarted
    let changed = clock.now
    launcher.every(.milliseconds(20)) {
      ticks.record(clock.now)
      ticked.finish()
    }
    #expect(launcher.timersStarted == timers + 1)
    #expect(await ticked.wait(timeout: helperTimeout))
    launcher.stop()
    #expect(ticks.all.first.map { $0 - changed >= .milliseconds(20) - .microseconds(500) } == true)
  }

  @Test func theSameIntervalOrAStartWhileActiveKeepsTheGrid() {
    // Whether a grid was kept cannot be read off a clock on a busy machine; the launcher
    // counts the timers it started, one per grid.
    let launcher = DefaultPeriodicTaskLauncher()
    launcher.every(.seconds(3_600)) {}
    #expect(launcher.timersStarted == 0)  // inactive: no grid yet
    launcher.every(.seconds(1_800)) {}
    #expect(launcher.timersStarted == 0)
    launcher.start()
    #expect(launcher.timersStarted == 1)
    launcher.every(.seconds(1_800)) {}  // the same interval: only the task changes
    launcher.start()  // already active: nothing
    #expect(launcher.timersStarted == 1)
    launcher.every(.seconds(900)) {}  // a new one: a new grid from now
    #expect(launcher.timersStarted == 2)
    launcher.stop()
    launcher.stop()
    launcher.start()  // stop, then start: the count restarts
    #expect(launcher.timersStarted == 3)
    launcher.stop()
  }

  @Test func aRestartedLauncherTicksOneIntervalAfterTheRestart() async {
    let launcher = DefaultPeriodicTaskLauncher()
    let clock = ContinuousClock()
    let ticks = Recorder<ContinuousClock.Instant>()
    let ticked = Waiter(count: 2)
    launcher.every(.milliseconds(30)) {
      ticks.record(clock.now)
      ticked.finish()
    }
    launcher.start()
    launcher.stop()
    let restarted = clock.now
    launcher.start()
    #expect(await ticked.wait(timeout: helperTimeout))
    launcher.stop()
    for (index, time) in ticks.all.prefix(2).enumerated() {
      #expect(time - restarted >= .milliseconds(30 * (index + 1)) - .microseconds(500))
    }
  }

  @Test func missedDeadlinesAreNotMadeUp() async {
    // The queue is held while many deadlines pass; once it runs again, the launcher ticks
    // once for all of them, not once for each.
    let queue = DispatchQueue(label: "test.ticks")
    let launcher = DefaultPeriodicTaskLauncher(queue: queue)
    let ticks = Counter()
    launcher.every(.milliseconds(30)) { ticks.increment() }
    queue.suspend()
    launcher.start()
    await witnessTicks(20, every: .milliseconds(30), on: DispatchQueue(label: "test.witness"))
    queue.resume()
    queue.sync {}
    launcher.stop()
    queue.sync {}
    // At least 20 deadlines passed while the queue was held; made up, they would be 20 ticks.
    // (A few more deadlines may pass between resume() and stop() on a loaded machine.)
    #expect(ticks.value >= 1)
    #expect(ticks.value <= 10)
  }

  @Test(arguments: [Duration(secondsComponent: 0, attosecondsComponent: 1), .nanoseconds(1)])
  func aSubNanosecondIntervalTicksEveryNanosecond(interval: Duration) async {
    let launcher = DefaultPeriodicTaskLauncher()
    let ticked = Waiter(count: 3)
    launcher.every(interval) { ticked.finish() }
    launcher.start()
    #expect(await ticked.wait(timeout: helperTimeout))
    launcher.stop()
  }

  // The last two reach past `Int64.max` whole seconds, where `Duration.components` traps.
  @Test(arguments: [Duration.seconds(Int64.max), .seconds(1e20), .seconds(Int64.max) * 18])
  func aHugeIntervalIsAcceptedAndNeverTicks(interval: Duration) {
    let launcher = DefaultPeriodicTaskLauncher()
    let ticks = Counter()
    launcher.every(interval) { ticks.increment() }
    launcher.start()
    #expect(launcher.isActive)
    launcher.stop()
    #expect(ticks.value == 0)
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
    #expect(await first.wait(timeout: helperTimeout))
    launcher.every(.milliseconds(2)) {
      log.record("new")
      second.finish()
    }
    #expect(await second.wait(timeout: helperTimeout))
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
    #expect(await ticked.wait(timeout: helperTimeout))
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
      #expect(await ticked.wait(timeout: helperTimeout))
    }
    queue.sync {}  // a tick in progress held the launcher; it has finished now
    #expect(weakLauncher == nil)
    let afterRelease = ticks.value
    await witnessTicks(20, every: .milliseconds(1), on: queue)
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
    #expect(await done.wait(timeout: helperTimeout))
  }

  @Test(arguments: LauncherReentry.allCases, [Duration.seconds(3_600), .seconds(1_800)])
  func aReplacedTasksDeinitMayCallTheLauncher(call: LauncherReentry, newInterval: Duration) {
    // A new interval while active also replaces the timer.
    let launcher = DefaultPeriodicTaskLauncher()
    let log = Recorder<String>()
    let deinits = Counter()
    launcher.every(
      .seconds(3_600),
      launch: droppable(onDeinit: { [weak launcher] in
        deinits.increment()
        if let launcher { call.make(on: launcher, log: log) }
      }))
    launcher.start()
    launcher.every(newInterval) { log.record("new") }
    #expect(deinits.value == 1)
    #expect(launcher.isActive == (call != .stop))
    #expect(log.all == (call == .isActive ? ["active"] : []))
    launcher.stop()
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { DefaultPeriodicTaskLauncher().every(.zero) {} }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "DefaultPeriodicTaskLauncher.every(_:launch:): interval must be positive, got 0.0 seconds"
      ))
    let negative = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { DefaultPeriodicTaskLauncher().every(.seconds(-5)) {} }
    #expect(
      String(decoding: negative.standardErrorContent, as: UTF8.self).contains(
        "DefaultPeriodicTaskLauncher.every(_:launch:): interval must be positive, got -5.0 seconds"
      ))
  }
}

/// The launcher on the main queue: XCTest runs these on the main thread, and the waiter spins
/// the main run loop, so the main queue drains (in Swift Testing it never does).
final class DefaultPeriodicTaskLauncherOnTheMainQueueTests: WatchedTestCase {
  func testTicksRunOnTheMainQueue() {
    let launcher = DefaultPeriodicTaskLauncher(queue: .main)
    let onMain = Recorder<Bool>()
    let ticked = Waiter(count: 3)
    launcher.every(.milliseconds(2)) {
      onMain.record(MainQueueProbe.isCurrent)
      ticked.finish()
    }
    launcher.start()
    XCTAssertTrue(ticked.wait(timeout: helperTimeout))
    launcher.stop()
    XCTAssertEqual(onMain.all.prefix(3), [true, true, true])
  }

  func testARateLimiterOnTheMainQueueRunsItsKeptActionThere() {
    let limiter = RateLimiter(
      interval: .milliseconds(5), launcher: DefaultPeriodicTaskLauncher(queue: .main))
    let log = Recorder<String>()
    let ran = Waiter()
    // This thread is the main queue's: no tick can run until the waiter spins the run loop.
    limiter.execute { log.record("a") }
    limiter.execute { log.record("b") }
    limiter.execute {
      log.record(MainQueueProbe.isCurrent ? "c on main" : "c elsewhere")
      ran.finish()
    }
    XCTAssertEqual(log.all, ["a"])
    XCTAssertTrue(ran.wait(timeout: helperTimeout))
    XCTAssertEqual(log.all, ["a", "c on main"])
  }

  func testADebouncerOnTheMainQueueRunsTheLatestActionThere() {
    let debouncer = Debouncer(
      interval: .milliseconds(5), launcher: DefaultPeriodicTaskLauncher(queue: .main))
    let log = Recorder<String>()
    let ran = Waiter()
    debouncer.execute { log.record("a") }
    debouncer.execute {
      log.record(MainQueueProbe.isCurrent ? "b on main" : "b elsewhere")
      ran.finish()
    }
    XCTAssertTrue(ran.wait(timeout: helperTimeout))
    XCTAssertEqual(log.all, ["b on main"])
  }
}

/// Tells whether the caller runs on the main queue, from a key of the test's own.
enum MainQueueProbe {
  private static let key = DispatchSpecificKey<Bool>()

  static var isCurrent: Bool {
    DispatchQueue.main.setSpecific(key: key, value: true)
    return DispatchQueue.getSpecific(key: key) == true
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
