import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldLiveAndMockTests {
  @Test func theMockWorldIsDeterministic() {
    let world = World.mock
    #expect(world.date() == Date(timeIntervalSinceReferenceDate: 0))
    #expect(world.date() == world.date())
    #expect(world.calendar.identifier == .gregorian)
    #expect(["UTC", "GMT"].contains(world.timeZone.identifier))  // Linux spells UTC "GMT"
    #expect(world.timeZone.secondsFromGMT(for: .distantPast) == 0)
    #expect(world.timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: 1.5e9)) == 0)
    #expect(world.locale.identifier == "en_US")
    #expect(world.calendar.locale?.identifier == "en_US")  // the calendar follows the locale
    #expect(world.preferredLanguages == ["en"])
    #expect(world.storage.value(forKey: "anything") == nil)
  }

  @Test func mockUUIDsCountUpFromZero() {
    let world = World.mock
    #expect(world.uuid().uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(world.uuid().uuidString == "00000000-0000-0000-0000-000000000001")
    let copy = world  // a copy shares the sequence
    #expect(copy.uuid().uuidString == "00000000-0000-0000-0000-000000000002")
    for _ in 3..<255 { _ = world.uuid() }
    #expect(world.uuid().uuidString == "00000000-0000-0000-0000-0000000000FF")
    #expect(world.uuid().uuidString == "00000000-0000-0000-0000-000000000100")
  }

  @Test func everyAccessToMockStartsAFreshSequenceAndStore() {
    let first = World.mock
    _ = first.uuid()
    first.storage.set("kept", forKey: "key")
    let second = World.mock
    #expect(second.uuid().uuidString == "00000000-0000-0000-0000-000000000000")
    #expect(second.storage.value(forKey: "key") == nil)
    #expect(first.storage.value(forKey: "key", as: String.self) == "kept")
    withWorld(.mock) { #expect(Current.uuid().uuidString.hasSuffix("000000000000")) }
    withWorld(.mock) { #expect(Current.uuid().uuidString.hasSuffix("000000000000")) }
  }

  @Test func mockUUIDsAreDistinctAcrossThreads() {
    let world = World.mock
    let recorder = Recorder<UUID>()
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<1_000 { recorder.record(world.uuid()) }
    }
    let expected = Set((0..<8_000).map { String(format: "00000000-0000-0000-0000-%012X", $0) })
    #expect(Set(recorder.all.map(\.uuidString)) == expected)
  }

  @Test func theLiveWorldReadsTheSystem() {
    let world = World.live
    let before = Date()
    let now = world.date()
    let after = Date()
    #expect(now >= before && now <= after)
    #expect(world.uuid() != world.uuid())
    #expect(world.preferredLanguages == Locale.preferredLanguages)
    #expect(world.timeZone.identifier == TimeZone.current.identifier)
    #expect(world.locale.identifier == Locale.current.identifier)
    #expect(world.calendar.identifier == Calendar.current.identifier)
    // The calendar's time zone and locale are the world's, as in every world.
    #expect(world.calendar.timeZone == world.timeZone)
    #expect(world.calendar.locale == world.locale)
  }

  @Test func theMockTimeZoneHasNoOffsetWhateverFoundationCallsIt() {
    let zone = World.mock.timeZone
    #expect(zone.secondsFromGMT(for: .distantPast) == 0)
    #expect(zone.secondsFromGMT(for: .distantFuture) == 0)
    #expect(["UTC", "GMT"].contains(zone.identifier))
    #expect(World.mock.calendar.timeZone == zone)
  }

  @Test func aDeinitThatDrawsFromTheMockSequenceContinuesIt() {
    withWorld(.mock) {
      #expect(Current.uuid().uuidString.hasSuffix("000000000000"))
      let drawn = Recorder<String>()
      do {
        let probe = OnDeinit { drawn.record(Current.uuid().uuidString) }
        Current.date = { [probe] in
          _ = probe
          return .distantPast
        }
      }
      Current.date = { .distantPast }
      #expect(drawn.all == ["00000000-0000-0000-0000-000000000001"])
      #expect(Current.uuid().uuidString == "00000000-0000-0000-0000-000000000002")
    }
  }
}
