import Foundation

/// The error thrown when a world is given an identifier that names no locale or time zone.
public enum WorldError: Error, Equatable, Sendable {
  /// No locale has this identifier.
  case unknownLocaleIdentifier(String)
  /// No time zone has this identifier.
  case unknownTimeZoneIdentifier(String)
}

extension World {
  /// Sets ``locale`` to the locale named `identifier`, or throws when no locale has that name.
  ///
  /// `Locale(identifier:)` accepts any string, and an unknown one silently formats with the
  /// root locale's data ("September 13, 2018" for `"zz_QQ"`). This method accepts an
  /// identifier only when its language and region name an available locale, in either
  /// spelling (`"es_ES"`, `"es-ES"`), with or without keywords (`"th_TH@calendar=buddhist"`).
  /// The world is unchanged when it throws.
  ///
  /// ```swift
  /// try world.setLocale(identifier: "es-ES")     // world.locale.identifier == "es_ES"
  /// try world.setLocale(identifier: "Klingon")   // throws WorldError.unknownLocaleIdentifier
  /// ```
  ///
  /// - Parameter identifier: A locale identifier, in ICU or BCP 47 form.
  /// - Throws: ``WorldError/unknownLocaleIdentifier(_:)`` when no available locale matches.
  public mutating func setLocale(identifier: String) throws(WorldError) {
    let canonical = Locale.identifier(.icu, from: identifier)
    let base = String(canonical.prefix { $0 != "@" })
    guard !base.isEmpty, Locale.availableIdentifiers.contains(base) else {
      throw .unknownLocaleIdentifier(identifier)
    }
    locale = Locale(identifier: canonical)
  }

  /// Sets ``timeZone`` to the time zone named `identifier`, or throws when there is none.
  ///
  /// Accepts what `TimeZone(identifier:)` accepts: IANA names such as `"Pacific/Honolulu"`,
  /// `"UTC"` and `"GMT"`. The world is unchanged when it throws.
  ///
  /// ```swift
  /// try world.setTimeZone(identifier: "Pacific/Honolulu")
  /// try world.setTimeZone(identifier: "Mars/Olympus")   // throws
  /// ```
  ///
  /// - Parameter identifier: A time-zone identifier.
  /// - Throws: ``WorldError/unknownTimeZoneIdentifier(_:)`` when there is no such time zone.
  public mutating func setTimeZone(identifier: String) throws(WorldError) {
    guard let zone = TimeZone(identifier: identifier) else {
      throw .unknownTimeZoneIdentifier(identifier)
    }
    timeZone = zone
  }
}
