// Paired measurement for a shared, noisy machine. Separate benchmark processes land in
// different cache and memory conditions (the same loop was measured at 0.5 ms in one process
// and 0.9 ms in the next), so ratios between separately run benchmarks are unreliable. Here
// every sample of a variant also times the baseline, back to back, in the same process, on the
// same data, and records the variant / baseline ratio.

import Benchmark

/// A named piece of work to measure: one call is one iteration.
public struct Variant {
  /// The name shown after the group: "<group> · <name>".
  public let name: String
  /// The work; it should pass its result to `blackHole` so it is not optimized away.
  public let body: () -> Void

  /// Creates a variant.
  public init(_ name: String, _ body: @escaping () -> Void) {
    self.name = name
    self.body = body
  }
}

/// The custom metric holding the variant's time divided by the baseline's, in per mille
/// (1000 = as fast as the baseline).
public let ratioToBaseline = BenchmarkMetric.custom(
  "ratio to baseline (‰)", polarity: .prefersSmaller, useScalingFactor: false)

/// Registers the benchmark "<group> · <baseline>" and, for each variant, "<group> · <variant>"
/// whose samples also record ``ratioToBaseline``. The baseline is usually the hand-written
/// equivalent; `report.sh` prints the medians of both.
///
/// Each sample runs `configuration.scalingFactor` iterations of the variant, measured (wall
/// clock, mallocs), and as many of the baseline, timed outside the measurement. Samples
/// alternate which of the two runs first, so whichever runs second and finds the data warm in
/// the cache is the baseline half the time; each pair of consecutive samples gives one ratio,
/// the variant's total time over the baseline's.
///
/// With `calibrate`, a variant "baseline again (A/A)" runs the baseline against itself: its
/// ratio shows how far from 1.00× this method strays for code that is the same.
///
/// `around` wraps each whole sample, both halves of it, for work that must run in some context
/// entered once per sample rather than once per iteration (a scope held open, say).
public func compare(
  _ group: String,
  configuration: Benchmark.Configuration = Benchmark.defaultConfiguration,
  calibrate: Bool = false,
  around: @escaping (() -> Void) -> Void = { $0() },
  baseline: Variant,
  _ variants: Variant...
) {
  Benchmark("\(group) · \(baseline.name)", configuration: configuration) { benchmark in
    around {
      for _ in benchmark.scaledIterations { baseline.body() }
    }
  }
  var paired = configuration
  paired.metrics.append(ratioToBaseline)
  let clock = ContinuousClock()
  let all = variants + (calibrate ? [Variant("baseline again (A/A)", baseline.body)] : [])
  for variant in all {
    var baselineFirst = false
    var pending: (variant: Duration, baseline: Duration)?
    Benchmark("\(group) · \(variant.name)", configuration: paired) { benchmark in
      around { sample(benchmark) }
    }
    func sample(_ benchmark: Benchmark) {
      let iterations = benchmark.scaledIterations
      func timeBaseline() -> Duration {
        clock.measure { for _ in iterations { baseline.body() } }
      }
      baselineFirst.toggle()
      let before = baselineFirst ? timeBaseline() : nil
      benchmark.startMeasurement()
      let variantTime = clock.measure { for _ in iterations { variant.body() } }
      benchmark.stopMeasurement()
      let baselineTime = before ?? timeBaseline()
      if let earlier = pending {
        let ratio = (earlier.variant + variantTime) / (earlier.baseline + baselineTime)
        benchmark.measurement(ratioToBaseline, Int((ratio * 1000).rounded()))
        pending = nil
      } else {
        pending = (variantTime, baselineTime)
      }
    }
  }
}

extension Benchmark.Configuration {
  /// The configuration of the suites that time nanosecond-scale operations: wall clock and
  /// mallocs, in nanoseconds, a thousand operations per iteration (`scalingFactor: .kilo`, so
  /// the reported times are per operation), at most two seconds per benchmark.
  public static func perOperation(warmupIterations: Int, maxIterations: Int) -> Self {
    .init(
      metrics: [.wallClock, .mallocCountTotal],
      timeUnits: .nanoseconds,
      warmupIterations: warmupIterations,
      scalingFactor: .kilo,
      maxDuration: .seconds(2),
      maxIterations: maxIterations
    )
  }
}
