import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// 2018-09-13 17:00 in Honolulu (UTC−10): 2018-09-14 03:00 UTC.
let septemberThirteenthAt5PMInHonolulu = Date(timeIntervalSince1970: 1_536_894_000)

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldFormattersTests {
  @Test func theSpanishBuddhistDateInHonolulu() throws {
    try withWorld(.mock) {
      try withWorld({
        $0.calendar = Calendar(identifier: .buddhist)
        try $0.setLocale(identifier: "es_ES")
        try $0.setTimeZone(identifier: "Pacific/Honolulu")
      }) {
        let text = Current.dateFormatter().string(from: septemberThirteenthAt5PMInHonolulu)
        #expect(text == "13 de septiembre de 2561 BE, 17:00")
      }
    }
  }

  @Test(
    arguments: [
      (DateFormatter.Style.long, DateFormatter.Style.short, "January 1, 2001 at 12:00 AM"),
      (.short, .none, "1/1/01"),
      (.none, .short, "12:00 AM"),
      (.none, .none, ""),
      (.full, .none, "Monday, January 1, 2001"),
    ])
  func stylesInTheMockWorld(
    dateStyle: DateFormatter.Style, timeStyle: DateFormatter.Style, expected: String
  ) {
    withWorld(.mock) {
      let formatter = Current.dateFormatter(dateStyle: dateStyle, timeStyle: timeStyle)
      let text = formatter.string(from: Current.date())
      #expect(text.replacingOccurrences(of: "\u{202F}", with: " ") == expected)
    }
  }

  @Test func theDefaultsAreLongDateAndShortTime() {
    let world = World.mock
    let defaults = world.dateFormatter()
    #expect(defaults.dateStyle == .long)
    #expect(defaults.timeStyle == .short)
    #expect(defaults.calendar.identifier == .gregorian)
    #expect(defaults.locale.identifier == "en_US")
    #expect(defaults.timeZone == world.timeZone)
  }

  @Test(
    arguments: [
      ("yyyy-MM-dd HH:mm", "en_US", "2018-09-13 17:00"),
      ("d MMMM", "es_ES", "13 septiembre"),
      ("EEEE", "fr_FR", "jeudi"),
      ("", "en_US", ""),
    ])
  func fixedFormatsUseTheWorldsLocaleAndTimeZone(format: String, locale: String, expected: String)
    throws
  {
    var world = World.mock
    try world.setLocale(identifier: locale)
    try world.setTimeZone(identifier: "Pacific/Honolulu")
    let text = world.dateFormatter(format: format).string(from: septemberThirteenthAt5PMInHonolulu)
    #expect(text == expected)
  }

  @Test func iso8601UsesTheWorldsTimeZoneOnly() throws {
    var world = World.mock
    #expect(world.iso8601Formatter().string(from: world.date()) == "2001-01-01T00:00:00Z")
    try world.setTimeZone(identifier: "Pacific/Honolulu")
    world.calendar = Calendar(identifier: .buddhist)
    try world.setLocale(identifier: "ar_EG")
    let text = world.iso8601Formatter().string(from: septemberThirteenthAt5PMInHonolulu)
    #expect(text == "2018-09-13T17:00:00-10:00")
    let dateOnly = world.iso8601Formatter(options: [.withFullDate])
    #expect(dateOnly.string(from: septemberThirteenthAt5PMInHonolulu) == "2018-09-13")
  }

  @Test func aFormatterIsASnapshotOfTheWorld() {
    withWorld(.mock) {
      let formatter = Current.dateFormatter()
      Current.locale = Locale(identifier: "es_ES")
      #expect(formatter.locale.identifier == "en_US")
      #expect(Current.dateFormatter().locale.identifier == "es_ES")
    }
  }
}
