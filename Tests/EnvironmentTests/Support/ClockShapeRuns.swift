import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// A shape of clock-driven code and one run of it: each run makes its own clock, moves it, and
/// returns whether everything it checked held when `advance` returned.
struct ClockShape: Sendable, CustomTestStringConvertible {
  let name: String
  /// How many runs a quick `swift test` makes (the full stress volume is 1,000).
  let quickRuns: Int
  let run: @Sendable () async -> Bool

  var testDescription: String { name }

  /// The shapes a test awaits from any task. The main-actor ones are here too: awaiting them
  /// hops to the main actor.
  static let all: [ClockShape] = [
    ClockShape(name: "woken work that yields", quickRuns: 20, run: wokenWorkYields),
    ClockShape(name: "children that yield", quickRuns: 20, run: childrenYield),
    ClockShape(name: "a yielding group of 1,000 children", quickRuns: 2, run: yieldingGroup),
    ClockShape(name: "an AsyncStream consumer", quickRuns: 20, run: streamConsumer),
    ClockShape(name: "a main-actor polling loop", quickRuns: 10, run: mainActorPollingLoop),
    ClockShape(name: "an idle actor it calls", quickRuns: 20, run: idleActorCalls),
    ClockShape(
      name: "a retry loop", quickRuns: 10, run: { (try? await retryLoopBacksOff()) ?? false }),
    ClockShape(name: "a polling loop", quickRuns: 10, run: pollingLoopPollsOncePerInterval),
    ClockShape(name: "a timeout that fires", quickRuns: 10, run: timeoutFires),
    ClockShape(
      name: "a timeout that does not fire", quickRuns: 10,
      run: { (try? await timeoutDoesNotFire()) ?? false }),
    ClockShape(name: "a debounced search", quickRuns: 10, run: debouncedSearch),
    ClockShape(name: "two clocks at once", quickRuns: 10, run: twoClocksAtOnce),
  ]

  /// How many of `stressVolume(full: 1_000, quick:)` runs went wrong.
  func failures(quick: Int) async -> Int {
    var failed = 0
    for _ in 0..<stressVolume(full: 1_000, quick: quick)
    where await !value(of: Task(operation: run)) {
      failed += 1
    }
    return failed
  }
}

/// Awaits `times` yields, then calls `record`.
func yielding(_ times: Int, then record: () -> Void) async {
  for _ in 0..<times { await Task.yield() }
  record()
}

/// Ten sleepers on one deadline; after waking, the nth yields n times before it records.
func wokenWorkYields() async -> Bool {
  let clock = ManualClock()
  let done = Counter()
  let sleepers = (1...10).map { times in
    Task {
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .seconds(1))
      await yielding(times) { done.increment() }
    }
  }
  guard await clock.waitForSleepers(10) else { return false }
  await clock.advance(by: .seconds(1))
  let seen = done.value
  for sleeper in sleepers { _ = await result(of: sleeper) }
  return seen == 10
}

/// A woken task starts a task that nobody awaits, an `async let` and a group child, and each
/// yields three times before it records.
func childrenYield() async -> Bool {
  let clock = ManualClock()
  let done = Recorder<String>()
  let parent = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    Task { await yielding(3) { done.record("task") } }
    async let child: Void = yielding(3) { done.record("async let") }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await yielding(3) { done.record("group child") } }
    }
    await child
  }
  guard await clock.waitForSleepers() else { return false }
  await clock.advance(by: .seconds(1))
  let seen = done.all
  _ = await result(of: parent)
  return seen.count == 3 && Set(seen) == ["task", "async let", "group child"]
}

/// A woken task runs a group of 1,000 children, every other one of which yields first.
func yieldingGroup() async -> Bool {
  let clock = ManualClock()
  let ran = Counter()
  let owner = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<1_000 {
        group.addTask { await yielding(index % 2) { ran.increment() } }
      }
    }
  }
  guard await clock.waitForSleepers() else { return false }
  await clock.advance(by: .seconds(1))
  let seen = ran.value
  _ = await result(of: owner)
  return seen == 1_000
}

/// A consumer waits in its `for await` loop; a woken producer feeds it three values, and the
/// consumer yields before it counts each.
func streamConsumer() async -> Bool {
  let clock = ManualClock()
  let consumed = Counter()
  let (stream, feed) = AsyncStream.makeStream(of: Int.self)
  let consumer = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    for await _ in stream { await yielding(1) { consumed.increment() } }
  }
  let producer = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(2))
    for value in 0..<3 { feed.yield(value) }
  }
  guard await clock.waitForSleepers(2) else { return false }
  await clock.advance(by: .seconds(1))  // the consumer now waits in its loop
  await clock.advance(by: .seconds(1))  // the producer feeds it
  let seen = consumed.value
  feed.finish()
  _ = await result(of: producer)
  _ = await result(of: consumer)
  return seen == 3
}

/// An actor that counts, after a yield.
actor Tally {
  private(set) var count = 0

  func add() async {
    await Task.yield()
    count += 1
  }
}

/// A woken task calls an idle actor, and starts a task that calls it too (nobody awaits it).
func idleActorCalls() async -> Bool {
  let clock = ManualClock()
  let tally = Tally()
  let woken = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    Task { await tally.add() }
    await tally.add()
  }
  guard await clock.waitForSleepers() else { return false }
  await clock.advance(by: .seconds(1))
  let counted = await tally.count
  _ = await result(of: woken)
  return counted == 2
}

/// A main-actor model polls at once and once a second; one `advance` of 3 s, awaited off the
/// main actor, wakes it three times.
func mainActorPollingLoop() async -> Bool {
  let clock = ManualClock()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let dashboard = Dashboard()
    let polling = await dashboard.start()
    guard await clock.waitForSleepers() else { return false }
    await clock.advance(by: .seconds(3))
    let refreshes = await dashboard.refreshes
    polling.cancel()
    await value(of: polling)
    return refreshes == 4
  }
}

/// The same, awaited from the main actor.
@MainActor func mainActorPollingLoopOnMain() async -> Bool {
  let clock = ManualClock()
  return await withWorld(.mock) { @MainActor () async -> Bool in
    Current.clock = clock
    let dashboard = Dashboard()
    let polling = dashboard.start()
    guard await clock.waitForSleepers() else { return false }
    await clock.advance(by: .seconds(3))
    let refreshes = dashboard.refreshes
    polling.cancel()
    await value(of: polling)
    return refreshes == 4
  }
}

/// A woken main-actor task yields three times on the main actor before it counts.
@MainActor func mainActorWorkYields() async -> Bool {
  let clock = ManualClock()
  let dashboard = Dashboard()
  let woken = Task { @MainActor in
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    for _ in 0..<3 { await Task.yield() }
    dashboard.count()
  }
  guard await clock.waitForSleepers() else { return false }
  await clock.advance(by: .seconds(1))
  let counted = dashboard.counted
  _ = await result(of: woken)
  return counted == 1
}

/// Two clocks, each advanced at once by its own task, each waking work that yields.
func twoClocksAtOnce() async -> Bool {
  async let first = childrenYield()
  async let second = childrenYield()
  return await (first, second) == (true, true)
}
