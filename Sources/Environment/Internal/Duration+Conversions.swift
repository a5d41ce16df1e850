// Copied, byte for byte, into the `Internal/` folder of every block that converts a `Duration`
// for Dispatch or Foundation; `.ci/shared-files` checks the copies. Edit
// `Sources/Shared/Duration+Conversions.swift` only.

extension Duration {
  /// The duration in whole nanoseconds, rounded toward zero and clamped to `Int`'s range
  /// (about ±292 years).
  var clampedNanoseconds: Int {
    // Clamped before `components` is read: it traps when the whole seconds do not fit in
    // `Int64`, and a `Duration` reaches about 1.7e20 seconds.
    if self >= .nanoseconds(Int.max) { return .max }
    if self <= .nanoseconds(Int.min) { return .min }
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflowAgain { return seconds < 0 ? .min : .max }
    return Int(clamping: total)
  }

  /// The duration in whole nanoseconds, rounded down, at least 1 and at most `Int.max`, for a
  /// positive duration (a timer's interval).
  var positiveNanoseconds: Int {
    Swift.max(1, clampedNanoseconds)
  }

  /// The duration in seconds, for every duration (reading `components` would trap beyond
  /// `Int64.max` seconds).
  var seconds: Double {
    self / .seconds(1)
  }
}
