// TinyEnvironment's `ManualClock`: one `advance` that wakes 1 or 100 sleepers, beside
// swift-clocks' `TestClock` doing the same in the same run (the first variant of each group, so
// `report.sh` gives the ratio to it). Each sample puts the sleepers to sleep, untimed, then
// times one advance that wakes them all.

import Benchmark
import Clocks
import Foundation
import TinyEnvironment

/// A clock a test moves: put `count` tasks to sleep on it for 1 s, then time moving it 1 s.
protocol AdvancedClock: Clock<Duration>, Sendable {
  /// Returns once `count` sleepers have reached their sleep.
  func settled(sleepers count: Int, started: StartedCount) async
  func advance(by duration: Duration) async
}

extension ManualClock: AdvancedClock {
  func settled(sleepers count: Int, started: StartedCount) async {
    await waitForSleepers(count)
  }
}

extension TestClock<Duration>: AdvancedClock {
  func settled(sleepers count: Int, started: StartedCount) async {
    // `TestClock` registers a sleeper in the same step that starts its sleep; it has no count
    // to wait for, so wait until every task has started, then let them reach their sleep.
    while started.value < count { await Task.yield() }
    await advance(by: .zero)
  }
}

/// A count that tasks bump from any thread.
final class StartedCount: @unchecked Sendable {  // safe: `count` is only used under `lock`
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

/// Registers "advance waking `sleepers` · TestClock" and "… · ManualClock".
func clockBenchmarks() {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 3,
    scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 300)
  for sleepers in [1, 100] {
    let group = "advance waking \(sleepers) sleeper\(sleepers == 1 ? "" : "s")"
    Benchmark("\(group) · swift-clocks TestClock", configuration: configuration) { benchmark in
      await advance(TestClock(), waking: sleepers, benchmark)
    }
    Benchmark("\(group) · TinyEnvironment ManualClock", configuration: configuration) {
      benchmark in
      await advance(ManualClock(), waking: sleepers, benchmark)
    }
  }
}

/// One sample: puts `count` tasks to sleep on `clock`, then times the advance that wakes them.
func advance(_ clock: some AdvancedClock, waking count: Int, _ benchmark: Benchmark) async {
  let started = StartedCount()
  let sleepers = (0..<count).map { _ in
    Task {
      started.increment()
      try await clock.sleep(for: .seconds(1))
    }
  }
  await clock.settled(sleepers: count, started: started)
  benchmark.startMeasurement()
  await clock.advance(by: .seconds(1))
  benchmark.stopMeasurement()
  for sleeper in sleepers { _ = await sleeper.result }
}
