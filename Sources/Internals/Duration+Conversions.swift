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
