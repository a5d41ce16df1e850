import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldIdentifiersTests {
  @Test(
    arguments: [
      ("es_ES", "es_ES"),
      ("es-ES", "es_ES"),
      ("en", "en"),
      ("en_US_POSIX", "en_US_POSIX"),
      ("th_TH@calendar=buddhist", "th_TH@calendar=buddhist"),
    ])
  func knownLocalesAreSet(identifier: String, expected: String) throws {
    var world = World.mock
    try world.setLocale(identifier: identifier)
    #expect(world.locale.identifier == expected)
    #expect(world.calendar.locale?.identifier == expected)
  }

  @Test(arguments: ["", "Klingon", "zz_QQ", "xx", "es_ES_FAKE", "@calendar=buddhist"])
  func unknownLocalesThrowAndChangeNothing(identifier: String) {
    var world = World.mock
    #expect(throws: WorldError.unknownLocaleIdentifier(identifier)) {
      try world.setLocale(identifier: identifier)
    }
    #expect(world.locale.identifier == "en_US")
  }

  @Test func plainLocalesAcceptAnythingAndFallBackSilently() {
    // The reason setLocale(identifier:) exists: Foundation formats an unknown locale with the
    // root locale's data instead of failing.
    var world = World.mock
    world.locale = Locale(identifier: "zz_QQ")
    #expect(world.locale.identifier == "zz_QQ")
    #expect(
      world.dateFormatter(dateStyle: .long, timeStyle: .none).string(from: world.date()) != "")
  }

  @Test(arguments: [
    "Pacific/Honolulu", "UTC", "GMT", "Europe/Madrid", "America/Argentina/Buenos_Aires",
  ])
  func knownTimeZonesAreSet(identifier: String) throws {
    var world = World.mock
    try world.setTimeZone(identifier: identifier)
    #expect(world.timeZone == TimeZone(identifier: identifier))
    #expect(world.calendar.timeZone == TimeZone(identifier: identifier))
  }

  @Test(arguments: ["", "Mars/Olympus", "Pacific/Honolul", "+25:00"])
  func unknownTimeZonesThrowAndChangeNothing(identifier: String) {
    var world = World.mock
    let before = world.timeZone
    #expect(throws: WorldError.unknownTimeZoneIdentifier(identifier)) {
      try world.setTimeZone(identifier: identifier)
    }
    #expect(world.timeZone == before)
  }
}
