import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// The shapes of code that waits, each run many times in a row on a `ManualClock` with no real
/// waiting: not one run may go wrong (1,000 runs of each with `TINYBLOCKS_FULL_STRESS=1`). Each
/// run is awaited for a bounded time: a time limit alone cannot end a shape that a broken clock
/// never wakes.
@Suite(.timeLimit(suiteTimeLimit)) struct ManualClockShapeTests {
  @Test(arguments: ClockShape.all) func everyRunOfTheShapeHolds(_ shape: ClockShape) async {
    #expect(await value(of: Task { await shape.failures() }) == 0)
  }

  @Test @MainActor func aMainActorPollingLoopAwaitedFromTheMainActorPollsThreeTimes() async {
    let failures = await failures(of: mainActorPollingLoopOnMain, quick: 10)
    #expect(failures == 0)
  }

  @Test @MainActor func mainActorWorkThatYieldsOnTheMainActorHasRun() async {
    #expect(await failures(of: mainActorWorkYields, quick: 10) == 0)
  }

  /// Every shape again while four threads keep both cores busy.
  @Test func everyShapeHoldsUnderLoad() async {
    let failures = await underLoad { await value(of: Task { await failuresOfEveryShape() }) }
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test @MainActor func theMainActorShapesHoldUnderLoad() async {
    let failed = await underLoad {
      await failures(of: mainActorPollingLoopOnMain, quick: 3)
        + failures(of: mainActorWorkYields, quick: 3)
    }
    #expect(failed == 0)
  }
}

/// How many of `stressVolume(full: 1_000, quick:)` runs of a main-actor shape went wrong.
@MainActor func failures(of shape: @MainActor () async -> Bool, quick: Int) async -> Int {
  var failed = 0
  for _ in 0..<stressVolume(full: 1_000, quick: quick) where await !shape() { failed += 1 }
  return failed
}

/// Runs every shape a third of its quick runs (at least one; 1,000 at full stress), and returns
/// how often each that went wrong did.
func failuresOfEveryShape() async -> [String: Int] {
  var failures: [String: Int] = [:]
  for shape in ClockShape.all {
    let failed = await shape.failures(
      runs: stressVolume(full: 1_000, quick: Swift.max(1, shape.quickRuns / 3)))
    if failed > 0 { failures[shape.name] = failed }
  }
  return failures
}

/// Runs `body` while four threads spin, competing with it for the cores.
func underLoad<Result: Sendable>(
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  let stop = Gate()
  let spinners = (0..<4).map { _ in startThread { while !stop.isOpen {} } }
  defer {
    stop.open()
    for spinner in spinners { spinner.wait() }
  }
  return try await body()
}

func retryLoopBacksOff() async throws -> Bool {
  let clock = ManualClock()
  let calls = Counter()
  return try await withWorld(.mock) { () async throws -> Bool in
    Current.clock = clock
    let result = Task {
      try await retrying(attempts: 4) { () async throws -> String in
        await Task.yield()
        if calls.increment() < 4 { throw TimeoutError() }
        return "done"
      }
    }
    var seen: [Int] = []
    await clock.waitForSleepers()
    seen.append(calls.value)  // 1
    await clock.advance(by: .milliseconds(999))
    seen.append(calls.value)  // 1: not yet
    await clock.advance(by: .milliseconds(1))
    seen.append(calls.value)  // 2: after 1 s
    await clock.advance(by: .seconds(2))
    seen.append(calls.value)  // 3: after 2 s more
    await clock.advance(by: .seconds(4))
    seen.append(calls.value)  // 4: after 4 s more
    let value = try await TinyTestSupport.value(of: result)
    return seen == [1, 1, 2, 3, 4] && value == "done" && clock.now.offset == .seconds(7)
  }
}

func pollingLoopPollsOncePerInterval() async -> Bool {
  let clock = ManualClock()
  let polls = Recorder<Duration>()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let poller = Task { await polling(every: .seconds(10)) { polls.record(clock.now.offset) } }
    await clock.waitForSleepers()
    await clock.advance(by: .seconds(35))  // three more polls, each settled before the next
    let seen = polls.all
    poller.cancel()
    await value(of: poller)
    return seen == [.zero, .seconds(10), .seconds(20), .seconds(30)] && clock.sleeperCount == 0
  }
}

func timeoutFires() async -> Bool {
  let clock = ManualClock()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let slow = Task {
      try await withTimeout(.seconds(5)) { () async throws -> Int in
        // timing: virtual time, which only the test moves
        try await Current.clock.sleep(for: .seconds(60))
        return 1
      }
    }
    await clock.waitForSleepers(2)
    await clock.advance(by: .seconds(5))
    // Read once the task that owns the group has its result: that task may have been running,
    // not yet waiting on the group, when the clock woke the timeout (see ManualClock's docs).
    let outcome = await result(of: slow)
    let left = clock.sleeperCount  // 0: the slow work was cancelled and left the clock
    guard case .failure(let error) = outcome else { return false }
    return left == 0 && error is TimeoutError
  }
}

func timeoutDoesNotFire() async throws -> Bool {
  let clock = ManualClock()
  return try await withWorld(.mock) { () async throws -> Bool in
    Current.clock = clock
    let quick = Task {
      try await withTimeout(.seconds(5)) { () async throws -> Int in
        // timing: virtual time, which only the test moves
        try await Current.clock.sleep(for: .seconds(2))
        return 42
      }
    }
    await clock.waitForSleepers(2)
    await clock.advance(by: .seconds(2))
    // The group's owner has its result (see above).
    let value = try await TinyTestSupport.value(of: quick)
    let left = clock.sleeperCount  // 0: the timeout's own sleep was cancelled
    return value == 42 && left == 0
  }
}

@MainActor func debouncedSearch() async -> Bool {
  let clock = ManualClock()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let field = SearchField()
    field.queryChanged("a")
    await clock.waitForSleepers(1)
    await clock.advance(by: .milliseconds(200))
    field.queryChanged("ad")
    field.queryChanged("ada")
    await clock.waitForSleepers(1)
    await clock.advance(by: .milliseconds(299))
    let early = field.searches
    await clock.advance(by: .milliseconds(1))
    return early == [] && field.searches == ["ada"]
  }
}
