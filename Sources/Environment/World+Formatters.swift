import Foundation

extension World {
  /// Returns a new date formatter for `dateStyle` and `timeStyle`, in this world's calendar,
  /// locale and time zone.
  ///
  /// ```swift
  /// withWorld({
  ///   $0.calendar = Calendar(identifier: .buddhist)
  ///   $0.locale = Locale(identifier: "es_ES")
  ///   $0.timeZone = TimeZone(identifier: "Pacific/Honolulu")!
  /// }) {
  ///   Current.dateFormatter().string(from: sept13At5pm)   // "13 de septiembre de 2561 BE, 17:00"
  /// }
  /// ```
  ///
  /// Making a formatter is far slower than using one; keep it while the world stays the same.
  /// The formatter is a snapshot: changing the world later does not change it.
  ///
  /// - Parameters:
  ///   - dateStyle: How to show the date; `.long` by default. `.none` leaves it out.
  ///   - timeStyle: How to show the time; `.short` by default. `.none` leaves it out.
  /// - Returns: A new formatter.
  public func dateFormatter(
    dateStyle: DateFormatter.Style = .long, timeStyle: DateFormatter.Style = .short
  ) -> DateFormatter {
    let formatter = configuredFormatter()
    formatter.dateStyle = dateStyle
    formatter.timeStyle = timeStyle
    return formatter
  }

  /// Returns a new date formatter for the fixed format `format`, in this world's calendar,
  /// locale and time zone.
  ///
  /// The format uses Unicode date-field symbols (`"yyyy-MM-dd HH:mm"`); an empty format gives
  /// empty strings. Month and day names come from the world's locale and the year from its
  /// calendar, so this is for text people read. For text machines read, use
  /// ``iso8601Formatter(options:)``, which does not depend on the locale or the calendar.
  ///
  /// ```swift
  /// withWorld(.mock) {
  ///   Current.dateFormatter(format: "d MMMM yyyy").string(from: Current.date())
  ///   // "1 January 2001"
  /// }
  /// ```
  ///
  /// - Parameter format: The fixed format.
  /// - Returns: A new formatter.
  public func dateFormatter(format: String) -> DateFormatter {
    let formatter = configuredFormatter()
    formatter.dateFormat = format
    return formatter
  }

  /// Returns a new ISO 8601 formatter in this world's time zone.
  ///
  /// ISO 8601 always uses the Gregorian calendar and ASCII digits, so only the time zone comes
  /// from the world.
  ///
  /// ```swift
  /// withWorld(.mock) {
  ///   Current.iso8601Formatter().string(from: Current.date())   // "2001-01-01T00:00:00Z"
  /// }
  /// ```
  ///
  /// - Parameter options: The parts to write; `.withInternetDateTime` (RFC 3339) by default.
  /// - Returns: A new formatter.
  public func iso8601Formatter(
    options: ISO8601DateFormatter.Options = [.withInternetDateTime]
  ) -> ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = timeZone
    formatter.formatOptions = options
    return formatter
  }

  /// A formatter with this world's calendar, locale and time zone.
  private func configuredFormatter() -> DateFormatter {
    let formatter = DateFormatter()
    formatter.calendar = calendar
    formatter.locale = locale
    formatter.timeZone = timeZone
    return formatter
  }
}
