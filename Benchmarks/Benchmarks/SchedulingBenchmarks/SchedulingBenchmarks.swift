// TinyScheduling: the default launcher's tick lateness and drift over 1,000 ticks at 10 ms,
// beside a raw DispatchSourceTimer and a relative `Task.sleep` loop; the clock launcher's over
// 200 ticks on the continuous clock, beside the default launcher's; 1,000 events 1 ms apart
// through a 50 ms RateLimiter, beside OpenCombine's throttle and swift-async-algorithms'
// throttle; and FakePeriodicTaskLauncher.fire() beside a direct call and combine-schedulers'
// TestScheduler.

import AsyncAlgorithms
import Benchmark
import BenchmarkSupport
import CombineSchedulers
import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch
import TinyScheduling

// MARK: - Recording instants from any thread

/// Instants appended from any thread, each with an integer label.
final class Timeline: @unchecked Sendable {  // safe: `entries` only under `lock`
  private let lock = NSLock()
  private var entries: [(label: Int, at: ContinuousClock.Instant)] = []

  init(capacity: Int) {
    entries.reserveCapacity(capacity)
  }

  func append(_ label: Int, at instant: ContinuousClock.Instant = .now) {
    lock.lock()
    entries.append((label, instant))
    lock.unlock()
  }

  var all: [(label: Int, at: ContinuousClock.Instant)] {
    lock.lock()
    defer { lock.unlock() }
    return entries
  }
}

/// Microseconds in a duration, rounded.
func microseconds(_ duration: Duration) -> Int {
  let (seconds, attoseconds) = duration.components
  return Int((Double(seconds) * 1e6 + Double(attoseconds) / 1e12).rounded())
}

// MARK: - Tick lateness and drift

let meanLateness = BenchmarkMetric.custom(
  "mean tick lateness (μs)", polarity: .prefersSmaller, useScalingFactor: false)
let finalDrift = BenchmarkMetric.custom(
  "final-tick drift (μs)", polarity: .prefersSmaller, useScalingFactor: false)

let tickCount = 1_000
let tickInterval = Duration.milliseconds(10)

/// Records mean lateness and final drift of the first `count` of `ticks` against the grid
/// `start + k × interval`.
func recordLateness(
  of ticks: [(label: Int, at: ContinuousClock.Instant)], from start: ContinuousClock.Instant,
  count: Int = tickCount, in benchmark: Benchmark
) {
  let lateness = ticks.prefix(count).enumerated().map { index, tick in
    tick.at - (start + tickInterval * (index + 1))
  }
  precondition(lateness.count == count, "expected \(count) ticks, got \(lateness.count)")
  benchmark.measurement(
    meanLateness, microseconds(lateness.reduce(.zero, +) / lateness.count))
  benchmark.measurement(finalDrift, microseconds(lateness.last!))
}

/// Starts `launcher` at 10 ms, waits for its `count`th tick, and records lateness and drift.
func measureTicks(of launcher: some PeriodicTaskLauncher, count: Int, in benchmark: Benchmark) {
  let ticks = Timeline(capacity: count + 10)
  let done = DispatchSemaphore(value: 0)
  launcher.every(tickInterval) {
    ticks.append(0)
    if ticks.all.count == count { done.signal() }
  }
  let start = ContinuousClock.now
  launcher.start()
  done.wait()
  launcher.stop()
  recordLateness(of: ticks.all, from: start, count: count, in: benchmark)
}

// MARK: - Throttling 1,000 events

let runCount = BenchmarkMetric.custom(
  "actions run", polarity: .prefersSmaller, useScalingFactor: false)
let firstDelay = BenchmarkMetric.custom(
  "first action after first input (μs)", polarity: .prefersSmaller, useScalingFactor: false)
let finalDelay = BenchmarkMetric.custom(
  "last input's action after last input (μs)", polarity: .prefersSmaller,
  useScalingFactor: false)

let eventCount = 1_000
let eventGap = Duration.milliseconds(1)
let throttleInterval = Duration.milliseconds(50)

/// Sends events 0..<eventCount at `start + k × eventGap` (absolute deadlines) and returns the
/// instants they were sent at.
func sendEvents(_ send: (Int) -> Void) async throws -> [ContinuousClock.Instant] {
  let clock = ContinuousClock()
  let start = clock.now
  var sent: [ContinuousClock.Instant] = []
  sent.reserveCapacity(eventCount)
  for event in 0..<eventCount {
    try await clock.sleep(until: start + eventGap * event)
    sent.append(clock.now)
    send(event)
  }
  return sent
}

/// Records how many actions ran, how soon the first came, and how soon after the last input
/// its action came (or a very large number when it never ran).
func recordThrottle(
  runs: [(label: Int, at: ContinuousClock.Instant)], sent: [ContinuousClock.Instant],
  in benchmark: Benchmark
) {
  benchmark.measurement(runCount, runs.count)
  if let first = runs.first { benchmark.measurement(firstDelay, microseconds(first.at - sent[0])) }
  if let last = runs.last(where: { $0.label == eventCount - 1 }) {
    benchmark.measurement(finalDelay, microseconds(last.at - sent[eventCount - 1]))
  } else {
    benchmark.measurement(finalDelay, Int.max / 2)
  }
}

/// Waits until `condition` holds, checking every millisecond, for at most `limit`.
func settle(within limit: Duration = .seconds(2), until condition: () -> Bool) async throws {
  let deadline = ContinuousClock.now + limit
  while !condition(), ContinuousClock.now < deadline {
    try await Task.sleep(for: .milliseconds(1))
  }
}

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
  // Tick lateness: one 10 s iteration each; the timing needs a quiet machine. The wall clock
  // is the time to the 1,000th tick: 10 s plus the final drift.
  let ticking = Benchmark.Configuration(
    metrics: [.wallClock, meanLateness, finalDrift], timeUnits: .milliseconds, warmupIterations: 0,
    scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 1)

  Benchmark("1,000 ticks at 10 ms · TinyScheduling DefaultPeriodicTaskLauncher",
    configuration: ticking
  ) { benchmark in
    measureTicks(of: DefaultPeriodicTaskLauncher(), count: tickCount, in: benchmark)
  }

  Benchmark("1,000 ticks at 10 ms · raw DispatchSourceTimer", configuration: ticking) {
    benchmark in
    let ticks = Timeline(capacity: tickCount + 10)
    let done = DispatchSemaphore(value: 0)
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "raw timer"))
    timer.setEventHandler {
      ticks.append(0)
      if ticks.all.count == tickCount { done.signal() }
    }
    let start = ContinuousClock.now
    timer.schedule(deadline: .now() + .milliseconds(10), repeating: .milliseconds(10), leeway: .nanoseconds(0))
    timer.resume()
    done.wait()
    timer.cancel()
    recordLateness(of: ticks.all, from: start, in: benchmark)
  }

  Benchmark("1,000 ticks at 10 ms · relative Task.sleep(for:) loop", configuration: ticking) {
    benchmark async throws in
    let ticks = Timeline(capacity: tickCount)
    let start = ContinuousClock.now
    for _ in 0..<tickCount {
      try await Task.sleep(for: tickInterval)
      ticks.append(0)
    }
    recordLateness(of: ticks.all, from: start, in: benchmark)
  }

  // The clock launcher on the continuous clock beside the dispatch launcher: 200 ticks at
  // 10 ms, three 2 s iterations each, in one run.
  let ticking200 = Benchmark.Configuration(
    metrics: [.wallClock, meanLateness, finalDrift], timeUnits: .milliseconds, warmupIterations: 0,
    scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 3)

  Benchmark("200 ticks at 10 ms · TinyScheduling DefaultPeriodicTaskLauncher",
    configuration: ticking200
  ) { benchmark in
    measureTicks(of: DefaultPeriodicTaskLauncher(), count: 200, in: benchmark)
  }

  Benchmark("200 ticks at 10 ms · TinyScheduling ClockPeriodicTaskLauncher, continuous clock",
    configuration: ticking200
  ) { benchmark in
    measureTicks(
      of: ClockPeriodicTaskLauncher(clock: ContinuousClock()), count: 200, in: benchmark)
  }

  // Throttling: 1,000 events 1 ms apart through a 50 ms limiter; about 1 s per iteration (the
  // wall clock runs from the first event to the last event's action).
  let throttling = Benchmark.Configuration(
    metrics: [.wallClock, runCount, firstDelay, finalDelay], timeUnits: .milliseconds, warmupIterations: 0,
    scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 3)

  Benchmark("1,000 events 1 ms apart, 50 ms · TinyScheduling RateLimiter",
    configuration: throttling
  ) { benchmark async throws in
    let runs = Timeline(capacity: eventCount)
    let limiter = RateLimiter(interval: throttleInterval)
    let sent = try await sendEvents { event in limiter.execute { runs.append(event) } }
    try await settle { runs.all.last?.label == eventCount - 1 }
    recordThrottle(runs: runs.all, sent: sent, in: benchmark)
  }

  Benchmark("1,000 events 1 ms apart, 50 ms · OpenCombine throttle(latest: true)",
    configuration: throttling
  ) { benchmark async throws in
    let runs = Timeline(capacity: eventCount)
    let subject = PassthroughSubject<Int, Never>()
    let queue = DispatchQueue(label: "throttle")
    let subscription = subject
      .throttle(for: .milliseconds(50), scheduler: queue.ocombine, latest: true)
      .sink { runs.append($0) }
    let sent = try await sendEvents { subject.send($0) }
    try await settle { runs.all.last?.label == eventCount - 1 }
    subscription.cancel()
    recordThrottle(runs: runs.all, sent: sent, in: benchmark)
  }

  Benchmark("1,000 events 1 ms apart, 50 ms · swift-async-algorithms _throttle(latest: true)",
    configuration: throttling
  ) { benchmark async throws in
    // Its input stays open for 2 intervals after the last event, then finishes: the last
    // event comes out only when the input finishes.
    let runs = Timeline(capacity: eventCount)
    let (events, input) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
    let consumer = Task {
      for await event in events._throttle(for: throttleInterval, clock: .continuous, latest: true) {
        runs.append(event)
      }
    }
    let sent = try await sendEvents { input.yield($0) }
    try await Task.sleep(for: throttleInterval * 2)
    input.finish()
    await consumer.value
    recordThrottle(runs: runs.all, sent: sent, in: benchmark)
  }

  // The fake launcher: 1,000 fires per iteration, paired with calling the task directly.
  let firing = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 1_000)
  let fired = Counter()
  let launcher = FakePeriodicTaskLauncher()
  launcher.every(.seconds(1)) { fired.increment() }
  launcher.start()
  let task: @Sendable () -> Void = { fired.increment() }
  compare(
    "1,000 repeating fires", configuration: firing,
    baseline: Variant("calling the task directly") {
      for _ in 0..<1_000 { task() }
    },
    Variant("TinyScheduling FakePeriodicTaskLauncher.fire()") {
      for _ in 0..<1_000 { blackHole(launcher.fire()) }
    },
    Variant("combine-schedulers TestScheduler.advance(by:)") {
      let scheduler = DispatchQueue.test
      let counter = Counter()
      let repeating = scheduler.schedule(
        after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(1)
      ) { counter.increment() }
      scheduler.advance(by: .seconds(1_000))
      precondition(counter.value == 1_000)
      repeating.cancel()
    }
  )
}

/// A counter the benchmarks' `@Sendable` tasks can bump.
final class Counter: @unchecked Sendable {  // safe: `count` only under `lock`
  private let lock = NSLock()
  private var count = 0

  func increment() {
    lock.lock()
    count += 1
    lock.unlock()
  }

  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
  }
}
