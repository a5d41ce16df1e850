import Foundation
import TinyInternals

/// The outside world an app reads: the date and a clock to sleep on, the calendar, the locale,
/// the time zone, the user's languages, new UUIDs, persistent storage, and the app's own
/// clients.
///
/// Read the world through ``Current`` instead of calling `Date()`, `Locale.current` or a
/// singleton, and a test can replace any of it with `withWorld(_:operation:)`:
///
/// ```swift
/// Current.date()                                   // now, in the live world
/// withWorld(.mock) {
///   Current.date()                                 // 2001-01-01 00:00:00 UTC
///   Current.uuid()                                 // 00000000-0000-0000-0000-000000000000
///   Current.date = { .distantPast }                // this scope only
/// }
/// ```
///
/// A world is a value: copying it and changing the copy never changes the original, so a
/// world captured with `let world = Current` keeps its fields whatever happens to ``Current``
/// later (the `date` and `uuid` closures it holds still run when called, so a live clock still
/// ticks). Start from ``World/live`` or ``World/mock`` and change fields; an app adds its own
/// fields with a ``WorldKey``.
///
/// The world keeps its calendar consistent with its other fields: `calendar.timeZone` is
/// always `timeZone` and `calendar.locale` is always `locale`. Setting `timeZone` or `locale`
/// updates the calendar, and setting `calendar` replaces the new calendar's time zone and
/// locale with the world's.
///
/// Copying a world costs one reference count: its fields live in one immutable object, and
/// setting a field makes a new one (and a second for the calendar, locale, time zone and
/// preferred languages, which share an object of their own).
public struct World: Sendable {
  /// The fields, shared between copies; setting a field replaces the whole object.
  var fields: Fields

  init(_ fields: Fields) {
    self.fields = fields
  }

  /// Returns the current date and time: `Date()` in the live world; in the mock world, the
  /// reference date (2001-01-01 00:00:00 UTC) plus the time the world's ``clock`` has moved.
  ///
  /// Replace it to travel in time, and assign `Date.init` to return to the live date:
  ///
  /// ```swift
  /// let moonLanding = Date(timeIntervalSince1970: -14_182_940)
  /// Current.date = { moonLanding }
  /// Current.date()             // 1969-07-20 20:17:40 +0000
  /// Current.date = Date.init   // the live date again
  /// ```
  ///
  /// Setting it in a mock world ends its following the clock: the test's date is kept.
  public var date: @Sendable () -> Date {
    get { fields.read { $0.date } }
    set {
      update {
        $0.date = newValue
        $0.dateFollowsClock = false
      }
    }
  }

  /// The clock that code sleeps on and measures time with: a `ContinuousClock` in the live
  /// world, a ``ManualClock`` that stands still until the test moves it in the mock world.
  ///
  /// Sleep and measure through it instead of `Task.sleep` or `ContinuousClock()`, and a test
  /// controls every wait:
  ///
  /// ```swift
  /// try await Current.clock.sleep(for: .seconds(2))   // two seconds live; until advanced in a test
  /// let elapsed = Current.clock.measure { work() }
  /// ```
  ///
  /// In a world made from ``World/mock`` whose `date` was never set, `date()` follows the clock
  /// while it is a ``ManualClock`` or an ``ImmediateClock``: it is the reference date plus the
  /// time the clock has moved, so one `advance` moves both. Setting `date` ends that; setting
  /// another clock makes `date()` follow the new one (or stay at the reference date, for a
  /// clock whose time is real).
  public var clock: any Clock<Duration> {
    get { fields.read { $0.clock } }
    set {
      update {
        $0.clock = newValue
        if $0.dateFollowsClock { $0.date = World.date(following: newValue) }
      }
    }
  }

  /// The calendar: `Calendar.autoupdatingCurrent` in the live world, the Gregorian calendar in
  /// the mock world.
  ///
  /// Its `timeZone` and `locale` are always the world's: setting this property replaces the
  /// new calendar's time zone and locale with ``timeZone`` and ``locale``.
  ///
  /// ```swift
  /// Current.calendar = Calendar(identifier: .buddhist)
  /// Current.calendar.component(.year, from: Current.date())   // 2544 in the mock world
  /// ```
  public var calendar: Calendar {
    get { fields.read { $0.regional.values.calendar } }
    set {
      updateRegional {
        $0.calendar = newValue
        $0.calendar.timeZone = $0.timeZone
        $0.calendar.locale = $0.locale
      }
    }
  }

  /// The locale: `Locale.autoupdatingCurrent` in the live world, `en_US` in the mock world.
  ///
  /// Setting it also sets the calendar's locale. `Locale(identifier:)` accepts any string and
  /// formats an unknown identifier with the root locale's data; use
  /// ``setLocale(identifier:)`` to reject unknown identifiers instead.
  ///
  /// ```swift
  /// Current.locale = Locale(identifier: "es_ES")
  /// ```
  public var locale: Locale {
    get { fields.read { $0.regional.values.locale } }
    set {
      updateRegional {
        $0.locale = newValue
        $0.calendar.locale = newValue
      }
    }
  }

  /// The time zone: `TimeZone.autoupdatingCurrent` in the live world, UTC in the mock world.
  ///
  /// Setting it also sets the calendar's time zone. `TimeZone(identifier:)` returns `nil` for
  /// an unknown identifier; ``setTimeZone(identifier:)`` throws instead.
  ///
  /// ```swift
  /// Current.timeZone = TimeZone(identifier: "Pacific/Honolulu")!
  /// ```
  public var timeZone: TimeZone {
    get { fields.read { $0.regional.values.timeZone } }
    set {
      updateRegional {
        $0.timeZone = newValue
        $0.calendar.timeZone = newValue
      }
    }
  }

  /// The user's preferred languages, most preferred first, as BCP 47 identifiers such as
  /// `"es-MX"`: `Locale.preferredLanguages` when the live world was made, `["en"]` in the mock
  /// world.
  ///
  /// ``localizedString(_:value:table:bundle:)`` resolves through this list, so a test pins the
  /// language by setting it. An empty list means "no preference": localized strings come from
  /// the bundle's development language.
  ///
  /// ```swift
  /// Current.preferredLanguages = ["es"]
  /// ```
  public var preferredLanguages: [String] {
    get { fields.read { $0.regional.values.preferredLanguages } }
    set { updateRegional { $0.preferredLanguages = newValue } }
  }

  /// Returns a new UUID: `UUID()` in the live world; in the mock world
  /// `00000000-0000-0000-0000-000000000000`, then `…-000000000001`, and so on.
  ///
  /// ```swift
  /// let id = Current.uuid()
  /// ```
  public var uuid: @Sendable () -> UUID {
    get { fields.read { $0.uuid } }
    set { update { $0.uuid = newValue } }
  }

  /// The persistent key-value storage: the standard user defaults in the live world, an empty
  /// in-memory store in the mock world.
  ///
  /// ```swift
  /// Current.storage.set("ada", forKey: "user")
  /// Current.storage.value(forKey: "user")   // "ada"
  /// ```
  public var storage: KeyValueStore {
    get { fields.read { $0.storage } }
    set { update { $0.storage = newValue } }
  }

  /// The mock world's date: the reference date plus the time `clock` has moved, for a clock
  /// whose time is virtual; the reference date for any other.
  static func date(following clock: any Clock<Duration>) -> @Sendable () -> Date {
    guard let virtual = clock as? any VirtualTimeClock else {
      return { Date(timeIntervalSinceReferenceDate: 0) }
    }
    return { Date(timeIntervalSinceReferenceDate: virtual.elapsed.seconds) }
  }

  /// Replaces the fields with a changed copy.
  mutating func update(_ change: (inout Values) -> Void) {
    var values = fields.value
    change(&values)
    fields = Fields(consume values)
  }

  /// Replaces the fields with a copy whose regional settings are changed.
  mutating func updateRegional(_ change: (inout RegionalValues) -> Void) {
    update { values in
      var regional = values.regional.values
      change(&regional)
      values.regional = Regional(regional)
    }
  }
}

extension World {
  /// Which value a world gives a ``WorldKey`` it holds no value for.
  enum KeyDefaults: Sendable {
    /// The key's `liveValue`.
    case live
    /// The key's `mockValue`.
    case mock
  }

  /// The fields of a world, immutable and shared between copies: one reference to the object
  /// that holds them.
  typealias Fields = ImmutableBox<Values>

  /// The fields themselves.
  ///
  /// The regional settings, which change together (the calendar follows the locale and the
  /// time zone), and which tests change less often than the date, the clock or the UUIDs, are
  /// in an object of their own: copying the fields to change one of the others counts one
  /// reference for all four.
  struct Values: Sendable {
    var date: @Sendable () -> Date
    /// Whether `date` is the mock world's, following `clock`.
    var dateFollowsClock: Bool
    var clock: any Clock<Duration>
    var regional: Regional
    var uuid: @Sendable () -> UUID
    var storage: KeyValueStore
    /// The values set for `WorldKey`s, by the key's type.
    var keyed: [ObjectIdentifier: any Sendable]
    var keyDefaults: KeyDefaults
  }

  /// The regional settings, immutable and shared between copies of the fields. A plain object:
  /// its values are Foundation's, which hold nothing of the user's, so freeing it can never set
  /// off a chain of releases (the fields, which hold the user's closures, free theirs through
  /// the trampoline).
  final class Regional: Sendable {
    let values: RegionalValues

    init(_ values: RegionalValues) {
      self.values = values
    }
  }

  /// The regional settings themselves.
  struct RegionalValues: Sendable {
    var calendar: Calendar
    var locale: Locale
    var timeZone: TimeZone
    var preferredLanguages: [String]
  }
}
