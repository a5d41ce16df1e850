extension ManualClock {
  /// A point in the clock's time: how long after the clock was made.
  public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
    /// The time since the clock was made.
    public let offset: Duration

    /// The instant `offset` after the clock was made.
    public init(offset: Duration = .zero) {
      self.offset = offset
    }

    /// The instant `duration` later (earlier, for a negative duration).
    ///
    /// An instant more than about 1.66e20 seconds (5e12 years) from the clock's start is out
    /// of the clock's range: asking for one stops the program with a message naming the values.
    public func advanced(by duration: Duration) -> Instant {
      advanced(by: duration, in: "ManualClock.Instant.advanced(by:)")
    }

    /// ``advanced(by:)``, stopping the program with a message naming `api` when the result is
    /// out of range (`Duration` itself traps a little further out, with no message).
    func advanced(by duration: Duration, in api: String) -> Instant {
      let limit = Duration.seconds(Int64.max) * 18  // about 1.66e20 s
      let fits = duration >= .zero ? offset <= limit - duration : offset >= .zero - limit - duration
      guard fits else {
        fatalError(
          "\(api): \(self) plus \(duration) is out of the clock's range (about ±1.66e20 seconds)")
      }
      return Instant(offset: offset + duration)
    }

    /// The time from this instant to `other`; negative when `other` is earlier.
    public func duration(to other: Instant) -> Duration {
      other.offset - offset
    }

    /// Whether `lhs` comes before `rhs`.
    public static func < (lhs: Instant, rhs: Instant) -> Bool {
      lhs.offset < rhs.offset
    }

    /// The offset with a sign: `+90.0 seconds`.
    public var description: String {
      "+\(offset)"
    }
  }
}
