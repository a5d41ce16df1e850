extension Duration {
  /// The duration in whole nanoseconds, rounded down, at least 1 and at most `Int.max`
  /// (about 292 years), for a positive duration.
  var positiveNanoseconds: Int {
    let (seconds, attoseconds) = components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return .max }
    let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
    if overflowAgain { return .max }
    return Swift.max(1, Int(clamping: total))
  }
}
