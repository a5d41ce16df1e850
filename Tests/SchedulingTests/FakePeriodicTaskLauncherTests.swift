import Testing
import TinyScheduling
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct FakePeriodicTaskLauncherTests {
  @Test func startsInactiveWithNoIntervalAndNoCalls() {
    let launcher = FakePeriodicTaskLauncher()
    #expect(!launcher.isActive)
    #expect(launcher.interval == nil)
    #expect(launcher.startCount == 0)
    #expect(launcher.stopCount == 0)
    #expect(!launcher.fire())
    #expect(launcher.fire(times: 3) == 0)
  }

  @Test func firesOnlyWhileActiveAndWithATask() {
    let launcher = FakePeriodicTaskLauncher()
    let ticks = Counter()
    launcher.start()
    #expect(launcher.isActive)
    #expect(!launcher.fire())  // active, but nothing to run yet
    launcher.every(.seconds(2)) { ticks.increment() }
    #expect(launcher.interval == .seconds(2))
    #expect(launcher.fire())
    #expect(ticks.value == 1)
    launcher.stop()
    #expect(!launcher.fire())
    #expect(ticks.value == 1)
  }

  @Test(
    "fire(times:)",
    arguments: [(-1, 0), (0, 0), (1, 1), (5, 5)] as [(Int, Int)])
  func firesSeveralTimes(times: Int, expected: Int) {
    let launcher = FakePeriodicTaskLauncher()
    let ticks = Counter()
    launcher.every(.seconds(1)) { ticks.increment() }
    launcher.start()
    #expect(launcher.fire(times: times) == expected)
    #expect(ticks.value == expected)
  }

  @Test func fireTimesStopsEarlyWhenTheTaskStopsTheLauncher() {
    let launcher = FakePeriodicTaskLauncher()
    let ticks = Counter()
    launcher.every(.seconds(1)) {
      if ticks.increment() == 2 { launcher.stop() }
    }
    launcher.start()
    #expect(launcher.fire(times: 10) == 2)
    #expect(!launcher.isActive)
  }

  @Test func startStopAndEveryNeverRunTheTask() {
    let launcher = FakePeriodicTaskLauncher()
    let ticks = Counter()
    launcher.start()
    launcher.every(.seconds(1)) { ticks.increment() }
    launcher.start()
    launcher.stop()
    launcher.start()
    launcher.every(.seconds(2)) { ticks.increment() }
    #expect(ticks.value == 0)
    #expect(launcher.fire())
    #expect(ticks.value == 1)
  }

  @Test func everyReplacesTheTaskAndTheInterval() {
    let launcher = FakePeriodicTaskLauncher()
    let log = Recorder<String>()
    launcher.every(.seconds(1)) { log.record("old") }
    launcher.start()
    launcher.fire()
    launcher.every(.milliseconds(5)) { log.record("new") }
    launcher.fire()
    #expect(log.all == ["old", "new"])
    #expect(launcher.interval == .milliseconds(5))
    #expect(launcher.isActive)  // every(_:launch:) does not start or stop
  }

  @Test func countsEveryStartAndStopCallIncludingOnesThatChangeNothing() {
    let launcher = FakePeriodicTaskLauncher()
    launcher.stop()
    launcher.start()
    launcher.start()
    launcher.stop()
    #expect(launcher.startCount == 2)
    #expect(launcher.stopCount == 2)
    #expect(!launcher.isActive)
  }

  @Test func theTaskMayStopRestartAndFireTheLauncherWithoutDeadlock() {
    let launcher = FakePeriodicTaskLauncher()
    let log = Recorder<Int>()
    launcher.every(.seconds(1)) {
      let depth = log.all.count
      log.record(depth)
      if depth == 0 {
        launcher.stop()
        launcher.start()
        launcher.fire()  // runs the task again, nested
      }
    }
    launcher.start()
    #expect(launcher.fire())
    #expect(log.all == [0, 1])
  }

  @Test func releasesTheTaskWhenReplacedAndWhenReleased() {
    weak var first: Canary?
    weak var second: Canary?
    weak var weakLauncher: FakePeriodicTaskLauncher?
    do {
      let launcher = FakePeriodicTaskLauncher()
      weakLauncher = launcher
      let canary = Canary()
      first = canary
      launcher.every(.seconds(1)) { _ = canary }
    }
    #expect(weakLauncher == nil)
    #expect(first == nil)
    let launcher = FakePeriodicTaskLauncher()
    do {
      let canary = Canary()
      second = canary
      launcher.every(.seconds(1)) { _ = canary }
    }
    #expect(second != nil)
    launcher.every(.seconds(1)) {}
    #expect(second == nil)
  }

  @Test func concurrentFiresRunTheTaskOncePerSuccessfulFire() async {
    let launcher = FakePeriodicTaskLauncher()
    let ticks = Counter()
    launcher.every(.seconds(1)) { ticks.increment() }
    launcher.start()
    let fired = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<4 {
        group.addTask { launcher.fire(times: 1_000) }
      }
      return await group.reduce(0, +)
    }
    #expect(fired == 4_000)
    #expect(ticks.value == 4_000)
  }

  /// What each call from a replaced task's `deinit`, then one `fire()`, leaves in the log.
  static let reentryOutcomes: [String: [String]] = [
    "every": ["d"],  // its task replaces "new"
    "start": ["new"],
    "stop": [],
    "isActive": ["active", "new"],
    "fire": ["new", "new"],  // the deinit's fire runs the new task
  ]

  @Test(arguments: ["every", "start", "stop", "isActive", "fire"])
  func aReplacedTasksDeinitMayCallTheLauncher(call: String) {
    let launcher = FakePeriodicTaskLauncher()
    let log = Recorder<String>()
    let deinits = Counter()
    launcher.start()
    launcher.every(
      .seconds(1),
      launch: droppable(onDeinit: { [weak launcher] in
        deinits.increment()
        guard let launcher else { return }
        if call == "fire" {
          launcher.fire()
        } else {
          LauncherReentry(rawValue: call)?.make(on: launcher, log: log)
        }
      }))
    launcher.every(.seconds(1)) { log.record("new") }
    #expect(deinits.value == 1)
    launcher.fire()
    #expect(log.all == Self.reentryOutcomes[call])
  }

  @Test func aNonPositiveIntervalIsAProgrammerErrorNamingTheValue() async throws {
    let zero = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { FakePeriodicTaskLauncher().every(.zero) {} }
    #expect(
      String(decoding: zero.standardErrorContent, as: UTF8.self).contains(
        "FakePeriodicTaskLauncher.every(_:launch:): interval must be positive, got 0.0 seconds"))
    let negative = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { FakePeriodicTaskLauncher().every(.milliseconds(-1)) {} }
    #expect(
      String(decoding: negative.standardErrorContent, as: UTF8.self).contains(
        "FakePeriodicTaskLauncher.every(_:launch:): interval must be positive, got -0.001 seconds"))
  }
}
