extension Duration {
  /// The duration in whole nanoseconds, rounded toward zero and clamped to `Int`'s range
  /// (about ±292 years).
  package var clampedNanoseconds: Int {
    // Clamped before `components` is read: it traps when the whole seconds do not fit in
    // `Int64`, and a `Duration` reaches about 1.7e20 seconds.
    if self >= .nanoseconds(Int.max) { return .max }
    if self <= .nanoseconds(Int.min) { return .min }
    let (seconds, attoseconds) = components
    return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
  }

  /// The duration in whole nanoseconds, at least 1 and at most `Int.max`, for a timer's
  /// interval.
  package var positiveNanoseconds: Int {
    Swift.max(1, clampedNanoseconds)
  }

  /// The duration in seconds, for every duration (reading `components` would trap beyond
  /// `Int64.max` seconds).
  package var seconds: Double {
    self / .seconds(1)
  }
}

extension Duration {
  /// How many whole times `interval` fits in this duration, `⌊self ÷ interval⌋`, counted
  /// exactly; zero when this duration is shorter than `interval`, `Int.max` when the count does
  /// not fit.
  ///
  /// Only `Duration`'s own integer arithmetic is used: a quotient in floating point miscounts
  /// exact multiples (`Int((.seconds(60) * 159) / .seconds(60))` is 158), and a clock launcher
  /// that merges missed ticks would then tick twice for one jump. `interval` must be positive.
  package func wholeMultiples(of interval: Duration) -> Int {
    guard self >= interval else { return 0 }
    // The largest `interval × 2^bit` that fits, found by doubling, which never overflows: each
    // doubling is taken only when it still fits in `self`.
    var power = interval
    var bit = 0
    while power <= self - power {
      power += power
      bit += 1
    }
    if bit >= Int.bitWidth - 1 { return .max }
    // Long division, one binary digit at a time; halving `interval × 2^bit` is exact.
    var remainder = self
    var count = 0
    while true {
      if power <= remainder {
        remainder -= power
        count |= 1 << bit
      }
      guard bit > 0 else { return count }
      power = power / 2
      bit -= 1
    }
  }
}
