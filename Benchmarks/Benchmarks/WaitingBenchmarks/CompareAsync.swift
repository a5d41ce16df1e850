// Paired measurement for asynchronous work: the `async` counterpart of BenchmarkSupport's
// `compare` (every sample also times the baseline, back to back, in one process). Kept in this
// suite while it is the only one that pairs `async` work.

import Benchmark
import BenchmarkSupport

/// A named piece of asynchronous work to measure: one call is one iteration.
struct AsyncVariant {
  /// The name shown after the group: "<group> · <name>".
  let name: String
  /// The work; it should pass its result to `blackHole` so it is not optimized away.
  let body: () async -> Void

  /// Creates a variant.
  init(_ name: String, _ body: @escaping () async -> Void) {
    self.name = name
    self.body = body
  }
}

/// Registers the benchmark "<group> · <baseline>" and, for each variant, "<group> · <variant>"
/// whose samples also record ``ratioToBaseline``: `compare` for `async` work, sample by sample
/// the same pairing (alternating which of the two runs first). With `calibrate`, a variant
/// "baseline again (A/A)" runs the baseline against itself.
func compare(
  _ group: String,
  configuration: Benchmark.Configuration = Benchmark.defaultConfiguration,
  calibrate: Bool = false,
  baseline: AsyncVariant,
  _ variants: AsyncVariant...
) {
  Benchmark("\(group) · \(baseline.name)", configuration: configuration) { benchmark async in
    for _ in benchmark.scaledIterations { await baseline.body() }
  }
  var paired = configuration
  paired.metrics.append(ratioToBaseline)
  let clock = ContinuousClock()
  let all = variants + (calibrate ? [AsyncVariant("baseline again (A/A)", baseline.body)] : [])
  for variant in all {
    let pairing = Pairing()
    Benchmark("\(group) · \(variant.name)", configuration: paired) { benchmark async in
      let iterations = benchmark.scaledIterations
      func timeBaseline() async -> Duration {
        await clock.measure { for _ in iterations { await baseline.body() } }
      }
      pairing.baselineFirst.toggle()
      let before = pairing.baselineFirst ? await timeBaseline() : nil
      benchmark.startMeasurement()
      let variantTime = await clock.measure { for _ in iterations { await variant.body() } }
      benchmark.stopMeasurement()
      let baselineTime = if let before { before } else { await timeBaseline() }
      if let earlier = pairing.pending {
        let ratio = (earlier.variant + variantTime) / (earlier.baseline + baselineTime)
        benchmark.measurement(ratioToBaseline, Int((ratio * 1000).rounded()))
        pairing.pending = nil
      } else {
        pairing.pending = (variantTime, baselineTime)
      }
    }
  }
}

/// What one variant's samples carry over to the next: the harness runs them one at a time.
private final class Pairing: @unchecked Sendable {  // safe: the harness runs one sample at a time
  var baselineFirst = false
  var pending: (variant: Duration, baseline: Duration)?
}

extension Benchmark.Configuration {
  /// The configuration of the suites that time round trips through another thread (tens of
  /// microseconds each): wall clock and mallocs, in nanoseconds, a thousand round trips per
  /// iteration (the reported times are per round trip), at most four seconds per benchmark.
  static var roundTrip: Self {
    .init(
      metrics: [.wallClock, .mallocCountTotal],
      timeUnits: .nanoseconds,
      warmupIterations: 2,
      scalingFactor: .kilo,
      maxDuration: .seconds(4),
      maxIterations: 60
    )
  }
}
