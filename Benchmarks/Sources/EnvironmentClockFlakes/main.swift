// Shapes of waiting code, each tested 1,000 times in a row with no real waiting, once on
// TinyEnvironment's `ManualClock` and once on swift-clocks' `TestClock`, while four threads keep
// both cores busy; prints how many runs of each went wrong.
//
//   cd Benchmarks && swift run -c release EnvironmentClockFlakes [runs]
//
// (The cost of one `advance` is in EnvironmentBenchmarks.)
//
// Each test is written the way each clock's documentation writes it: on the `ManualClock`, the
// test waits for the code to reach its sleep (`waitForSleepers`) and `advance` settles what it
// wakes; on the `TestClock`, `advance` yields to the woken tasks (`megaYield`) and hopes that
// they have run.

import Clocks
import Foundation
import TinyEnvironment

let runs = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000

// MARK: - The code under test: reads `Current.clock`, never knows which clock it is.

struct TimeoutError: Error {}

func retrying(attempts: Int, _ operation: @Sendable () async throws -> String) async throws
  -> String
{
  var backoff = Duration.seconds(1)
  for _ in 1..<attempts {
    do { return try await operation() } catch {
      try await Current.clock.sleep(for: backoff)
      backoff *= 2
    }
  }
  return try await operation()
}

func polling(every interval: Duration, _ fetch: @Sendable () async -> Void) async {
  while !Task.isCancelled {
    await fetch()
    do { try await Current.clock.sleep(for: interval) } catch { return }
  }
}

func withTimeout(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> Int)
  async throws -> Int
{
  try await withThrowingTaskGroup(of: Int.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      try await Current.clock.sleep(for: limit)
      throw TimeoutError()
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}

@MainActor final class SearchField {
  private var pending: Task<Void, Never>?
  private(set) var searches: [String] = []

  func queryChanged(_ query: String) {
    pending?.cancel()
    pending = Task {
      do { try await Current.clock.sleep(for: .milliseconds(300)) } catch { return }
      searches.append(query)
    }
  }
}

final class Counter: @unchecked Sendable {  // safe: `value` is only used under `lock`
  private let lock = NSLock()
  private var count = 0
  func increment() -> Int { lock.withLock { count += 1; return count } }
  var value: Int { lock.withLock { count } }
}

final class Log: @unchecked Sendable {  // safe: `entries` is only used under `lock`
  private let lock = NSLock()
  private var entries: [Duration] = []
  func record(_ entry: Duration) { lock.withLock { entries.append(entry) } }
  var all: [Duration] { lock.withLock { entries } }
}

// MARK: - One clock's side of the comparison.

/// What a test needs from a clock: move it, and (where the clock can) wait for sleepers.
protocol TestableClock: Clock<Duration>, Sendable {
  func prepare(sleepers: Int) async
  func advance(by duration: Duration) async
}

extension ManualClock: TestableClock {
  func prepare(sleepers: Int) async { await waitForSleepers(sleepers) }
}

extension TestClock<Duration>: TestableClock {
  func prepare(sleepers: Int) async {}  // `advance` yields first
}

func retryShape<C: TestableClock>(_ clock: C) async -> Bool {
  let calls = Counter()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let result = Task {
      try await retrying(attempts: 4) {
        if calls.increment() < 4 { throw TimeoutError() }
        return "done"
      }
    }
    var seen: [Int] = []
    await clock.prepare(sleepers: 1)
    await clock.advance(by: .seconds(1))
    seen.append(calls.value)
    await clock.advance(by: .seconds(2))
    seen.append(calls.value)
    await clock.advance(by: .seconds(4))
    seen.append(calls.value)
    let value = try? await result.value
    return seen == [2, 3, 4] && value == "done"
  }
}

func pollingShape<C: TestableClock>(_ clock: C) async -> Bool {
  let polls = Counter()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let poller = Task { await polling(every: .seconds(10)) { _ = polls.increment() } }
    await clock.prepare(sleepers: 1)
    await clock.advance(by: .seconds(35))
    let seen = polls.value
    poller.cancel()
    await poller.value
    return seen == 4
  }
}

func timeoutFiresShape<C: TestableClock>(_ clock: C) async -> Bool {
  let cancelled = Counter()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let slow = Task {
      try await withTimeout(.seconds(5)) {
        do { try await Current.clock.sleep(for: .seconds(60)) } catch {
          _ = cancelled.increment()
          throw error
        }
        return 1
      }
    }
    await clock.prepare(sleepers: 2)
    await clock.advance(by: .seconds(5))
    let seen = cancelled.value  // the timeout fired and cancelled the slow work
    let outcome = await slow.result
    guard case .failure(let error) = outcome else { return false }
    return seen == 1 && error is TimeoutError
  }
}

func timeoutInTimeShape<C: TestableClock>(_ clock: C) async -> Bool {
  await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let quick = Task {
      try await withTimeout(.seconds(5)) {
        try await Current.clock.sleep(for: .seconds(2))
        return 42
      }
    }
    await clock.prepare(sleepers: 2)
    await clock.advance(by: .seconds(2))
    await clock.advance(by: .seconds(3))  // a timeout that is still armed would fire here
    return (try? await quick.value) == 42
  }
}

@MainActor func debounceShape<C: TestableClock>(_ clock: C) async -> Bool {
  await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let field = SearchField()
    field.queryChanged("a")
    await clock.prepare(sleepers: 1)
    await clock.advance(by: .milliseconds(200))
    field.queryChanged("ad")
    field.queryChanged("ada")
    await clock.prepare(sleepers: 1)
    await clock.advance(by: .milliseconds(300))
    return field.searches == ["ada"]
  }
}

/// Ten sleepers; after waking, the nth yields n times before it counts.
func yieldingShape<C: TestableClock>(_ clock: C) async -> Bool {
  let done = Counter()
  let sleepers = (1...10).map { yields in
    Task {
      try await clock.sleep(for: .seconds(1))
      for _ in 0..<yields { await Task.yield() }
      _ = done.increment()
    }
  }
  await clock.prepare(sleepers: 10)
  await clock.advance(by: .seconds(1))
  let seen = done.value
  for sleeper in sleepers { _ = await sleeper.result }
  return seen == 10
}

@MainActor final class Dashboard {
  var refreshes = 0
  func start() -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        refreshes += 1
        do { try await Current.clock.sleep(for: .seconds(1)) } catch { return }
      }
    }
  }
}

/// A main-actor polling loop, woken three times by one advance awaited from the main actor.
@MainActor func mainActorPollingShape<C: TestableClock>(_ clock: C) async -> Bool {
  await withWorld(.mock) { @MainActor () async -> Bool in
    Current.clock = clock
    let dashboard = Dashboard()
    let polling = dashboard.start()
    await clock.prepare(sleepers: 1)
    await clock.advance(by: .seconds(3))
    let refreshes = dashboard.refreshes
    polling.cancel()
    await polling.value
    return refreshes == 4
  }
}

// MARK: - The runs.

/// Runs `body` while four threads spin, competing with it for the cores.
func underLoad<Result>(_ body: () async -> Result) async -> Result {
  let stop = Counter()
  let threads = (0..<4).map { _ in
    let thread = Thread { while stop.value == 0 {} }
    thread.start()
    return thread
  }
  defer {
    _ = stop.increment()
    _ = threads
  }
  return await body()
}

/// Runs one test, counting it as wrong when it has not finished after 5 s of real time (a
/// woken task that never ran, or a sleeper that never woke). Such a test is left behind,
/// suspended: awaiting a task that never finishes cannot be cancelled.
func passes(_ test: @escaping @Sendable () async -> Bool) async -> Bool {
  let answered = Counter()
  return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
    Task {
      let passed = await test()
      if answered.increment() == 1 { continuation.resume(returning: passed) }
    }
    Task {
      try? await Task.sleep(for: .seconds(5))
      if answered.increment() == 1 { continuation.resume(returning: false) }
    }
  }
}

func failures<C: TestableClock>(_ makeClock: @escaping @Sendable () -> C) async -> [Int] {
  var counts = [0, 0, 0, 0, 0, 0, 0]
  for _ in 0..<runs {
    if await !passes({ await retryShape(makeClock()) }) { counts[0] += 1 }
    if await !passes({ await pollingShape(makeClock()) }) { counts[1] += 1 }
    if await !passes({ await timeoutFiresShape(makeClock()) }) { counts[2] += 1 }
    if await !passes({ await timeoutInTimeShape(makeClock()) }) { counts[3] += 1 }
    if await !passes({ @MainActor in await debounceShape(makeClock()) }) { counts[4] += 1 }
    if await !passes({ await yieldingShape(makeClock()) }) { counts[5] += 1 }
    if await !passes({ @MainActor in await mainActorPollingShape(makeClock()) }) { counts[6] += 1 }
  }
  return counts
}

let started = ContinuousClock.now
let manual = await underLoad { await failures { ManualClock() } }
let manualTime = ContinuousClock.now - started
let restarted = ContinuousClock.now
let test = await underLoad { await failures { TestClock() } }
let testTime = ContinuousClock.now - restarted

print("Runs of each test that went wrong, out of \(runs), with 4 busy threads on \(ProcessInfo.processInfo.activeProcessorCount) cores:")
print("")
print("| test | TinyEnvironment `ManualClock` | swift-clocks `TestClock` |")
print("|---|---:|---:|")
for (index, name) in ["retry with backoff", "polling loop", "timeout that fires",
  "timeout that does not fire", "debounce", "woken work that yields",
  "main-actor polling loop"].enumerated() {
  print("| \(name) | \(manual[index]) | \(test[index]) |")
}
print("| wall time for all \(runs * 7) runs | \(manualTime) | \(testTime) |")
