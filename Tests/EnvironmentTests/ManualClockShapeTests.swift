import Foundation
import Testing
import TinyEnvironment
import TinyInternals
import TinyTestSupport

/// The shapes of code that waits, each run many times in a row on a `ManualClock` with no real
/// waiting, alone and while four threads keep both cores busy: not one run may go wrong (1,000
/// runs of each with `TINYBLOCKS_FULL_STRESS=1`). Each run is awaited for a bounded time: a time
/// limit alone cannot end a shape that a broken clock never wakes.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ManualClockShapeTests {
  @Test(arguments: ClockShape.all) func everyRunOfTheShapeHolds(_ shape: ClockShape) async {
    #expect(await shape.failures(quick: shape.quickRuns) == 0)
  }

  @Test(arguments: ClockShape.all) func everyRunOfTheShapeHoldsUnderLoad(_ shape: ClockShape) async
  {
    #expect(await underLoad { await shape.failures(quick: 1) } == 0)
  }

  @Test @MainActor func aMainActorPollingLoopAwaitedFromTheMainActorPollsThreeTimes() async {
    #expect(await failures(of: mainActorPollingLoopOnMain, quick: 10) == 0)
    #expect(await underLoad { await failures(of: mainActorPollingLoopOnMain, quick: 1) } == 0)
  }

  @Test @MainActor func mainActorWorkThatYieldsOnTheMainActorHasRun() async {
    #expect(await failures(of: mainActorWorkYields, quick: 10) == 0)
    #expect(await underLoad { await failures(of: mainActorWorkYields, quick: 1) } == 0)
  }
}

/// How many of `stressVolume(full: 1_000, quick:)` runs of a main-actor shape, each awaited from
/// the main actor, went wrong.
@MainActor func failures(of shape: @escaping @MainActor () async -> Bool, quick: Int) async -> Int {
  var failed = 0
  for _ in 0..<stressVolume(full: 1_000, quick: quick)
  where await !value(of: Task { @MainActor in await shape() }) {
    failed += 1
  }
  return failed
}

/// Runs `body` while four threads spin, competing with it for the cores. Tests under load at
/// the same time share the four threads.
func underLoad<Result: Sendable>(
  isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Result
) async rethrows -> Result {
  Load.enter()
  defer { Load.leave() }
  return try await body()
}

/// The four spinning threads, while at least one test runs under load.
enum Load {
  private static let state = Locked<(users: Int, stop: Gate)>((0, Gate()))

  static func enter() {
    let stop = state.withLock { state -> Gate? in
      state.users += 1
      guard state.users == 1 else { return nil }
      state.stop = Gate()
      return state.stop
    }
    guard let stop else { return }
    for _ in 0..<4 { startThread { while !stop.isOpen {} } }
  }

  static func leave() {
    state.withLock { state -> Gate? in
      state.users -= 1
      return state.users == 0 ? state.stop : nil
    }?.open()
  }
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
    guard await clock.waitForSleepers() else { return false }
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
    guard await clock.waitForSleepers() else { return false }
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
    guard await clock.waitForSleepers(2) else { return false }
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
    guard await clock.waitForSleepers(2) else { return false }
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
    guard await clock.waitForSleepers(1) else { return false }
    await clock.advance(by: .milliseconds(200))
    field.queryChanged("ad")
    field.queryChanged("ada")
    guard await clock.waitForSleepers(1) else { return false }
    await clock.advance(by: .milliseconds(299))
    let early = field.searches
    await clock.advance(by: .milliseconds(1))
    return early == [] && field.searches == ["ada"]
  }
}
