import Foundation

extension World {
  /// The real world: the system clock, the user's calendar, locale, time zone and languages,
  /// random UUIDs, the standard user defaults, and every ``WorldKey``'s `liveValue`.
  ///
  /// A new value on every access. Locale and time zone follow the system's settings as they
  /// change (`autoupdatingCurrent`), and so do the calendar's, which are the world's
  /// (`calendar.timeZone == timeZone` and `calendar.locale == locale`); the calendar's system
  /// (Gregorian, Buddhist, …) and `preferredLanguages` are read when the world is made.
  /// `clock` is a `ContinuousClock`. ``Current`` starts as the live world.
  ///
  /// ```swift
  /// Current = .live        // back to the real world, outside any scope
  /// ```
  public static var live: World {
    var calendar = Calendar.autoupdatingCurrent
    calendar.timeZone = .autoupdatingCurrent
    calendar.locale = .autoupdatingCurrent
    return World(
      Fields(
        Values(
          date: { Date() },
          dateFollowsClock: false,
          clock: ContinuousClock(),
          regional: Regional(
            RegionalValues(
              calendar: calendar,
              locale: .autoupdatingCurrent,
              timeZone: .autoupdatingCurrent,
              preferredLanguages: Locale.preferredLanguages)),
          uuid: { UUID() },
          storage: .userDefaults(),
          keyed: [:],
          keyDefaults: .live
        )))
  }

  /// A deterministic world for tests and previews, never touching a live service.
  ///
  /// - `clock` is a new ``ManualClock``: sleeps on it end only when the test moves it.
  /// - `date()` is the reference date, 2001-01-01 00:00:00 UTC, plus the time the clock has
  ///   moved: the reference date until the test advances the clock.
  /// - The calendar is Gregorian, the time zone UTC (Foundation on Linux names it `"GMT"`; the
  ///   offset is zero either way), the locale `en_US`, and the preferred languages `["en"]`.
  /// - `uuid()` returns `00000000-0000-0000-0000-000000000000`, `…-000000000001`, … in order.
  /// - `storage` is an empty in-memory store: nothing is read from or written to disk.
  /// - A ``WorldKey`` gives its `mockValue`, never its `liveValue`.
  ///
  /// Every access makes a new world, with a new clock, a UUID sequence that starts again at zero
  /// and a new empty store; copies of one mock world share its clock, its sequence and its
  /// store.
  ///
  /// ```swift
  /// withWorld(.mock) {
  ///   Current.uuid()    // 00000000-0000-0000-0000-000000000000
  ///   Current.uuid()    // 00000000-0000-0000-0000-000000000001
  ///   Current.dateFormatter().string(from: Current.date())   // "January 1, 2001 at 12:00 AM"
  /// }
  /// ```
  public static var mock: World {
    let utc = TimeZone(identifier: "UTC")!
    let locale = Locale(identifier: "en_US")
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = utc
    calendar.locale = locale
    let uuids = SequentialUUIDs()
    let clock = ManualClock()
    return World(
      Fields(
        Values(
          date: World.date(following: clock),
          dateFollowsClock: true,
          clock: clock,
          regional: Regional(
            RegionalValues(
              calendar: calendar, locale: locale, timeZone: utc, preferredLanguages: ["en"])),
          uuid: { uuids.next() },
          storage: .inMemory(),
          keyed: [:],
          keyDefaults: .mock
        )))
  }
}
