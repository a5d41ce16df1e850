import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// The four shapes of code that waits, each tested on a `ManualClock` with no real waiting.
/// Each body returns whether everything it checked held, so that the same body serves these
/// tests, their XCTest versions and the 1,000-run count under load. Each runs in a task awaited
/// for a bounded time: a time limit alone cannot end a shape that a broken clock never wakes.
@Suite(.timeLimit(suiteTimeLimit)) struct ManualClockShapeTests {
  @Test func aRetryLoopBacksOffOneTwoFourSeconds() async throws {
    #expect(try await value(of: Task { try await retryLoopBacksOff() }))
  }

  @Test func aPollingLoopPollsOncePerInterval() async {
    #expect(await value(of: Task { await pollingLoopPollsOncePerInterval() }))
  }

  @Test func aTimeoutFires() async {
    #expect(await value(of: Task { await timeoutFires() }))
  }

  @Test func aTimeoutDoesNotFireWhenTheWorkIsInTime() async throws {
    #expect(try await value(of: Task { try await timeoutDoesNotFire() }))
  }

  @Test @MainActor func aDebouncedSearchSearchesForTheLastQueryOnly() async {
    #expect(await value(of: Task { @MainActor in await debouncedSearch() }))
  }

  /// Every shape, many times in a row, while four threads keep both cores busy: not one run may
  /// go wrong (1,000 runs of each with `TINYBLOCKS_FULL_STRESS=1`).
  @Test func everyShapeHoldsUnderLoad() async throws {
    let runs = stressVolume(full: 1_000, quick: 20)
    let failures = try await underLoad {
      try await value(of: Task { try await shapeFailures(runs: runs) })
    }
    #expect(failures == ShapeFailures())
  }
}

/// How many runs of each shape went wrong.
struct ShapeFailures: Equatable, CustomStringConvertible {
  var retry = 0, polling = 0, timeoutFires = 0, timeoutInTime = 0, debounce = 0

  var description: String {
    "retry \(retry), polling \(polling), timeout fires \(timeoutFires), "
      + "timeout in time \(timeoutInTime), debounce \(debounce)"
  }
}

/// Runs every shape `runs` times and counts the runs that went wrong.
func shapeFailures(runs: Int) async throws -> ShapeFailures {
  var failures = ShapeFailures()
  for _ in 0..<runs {
    if try await !retryLoopBacksOff() { failures.retry += 1 }
    if await !pollingLoopPollsOncePerInterval() { failures.polling += 1 }
    if await !timeoutFires() { failures.timeoutFires += 1 }
    if try await !timeoutDoesNotFire() { failures.timeoutInTime += 1 }
    if await !debouncedSearch() { failures.debounce += 1 }
  }
  return failures
}

/// Runs `body` while four threads spin, competing with it for the cores.
func underLoad<Result: Sendable>(
  _ body: () async throws -> Result
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
