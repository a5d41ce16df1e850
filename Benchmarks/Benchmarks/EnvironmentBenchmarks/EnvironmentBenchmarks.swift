// TinyEnvironment: reading `Current` and entering a scope (CurrentBenchmarks.swift), and
// advancing a manual clock beside swift-clocks (ClockBenchmarks.swift).

import Benchmark
import BenchmarkSupport

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 3, maxIterations: 2_000)
  // Ratios printed in per mille, never rounded to thousands: a few preempted samples on a busy
  // machine would otherwise lift the mean, and with it the printed unit, past 10×.
  Benchmark.defaultConfiguration.units[ratioToBaseline] = .count
  currentBenchmarks()
  clockBenchmarks()
}
