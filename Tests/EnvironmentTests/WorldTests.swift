import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldTests {
  @Test func aWorldIsAValue() {
    let original = World.mock
    var copy = original
    copy.date = { .distantFuture }
    copy.preferredLanguages = ["fr"]
    copy.locale = Locale(identifier: "fr_FR")
    #expect(original.date() == Date(timeIntervalSinceReferenceDate: 0))
    #expect(original.preferredLanguages == ["en"])
    #expect(original.locale.identifier == "en_US")
    #expect(copy.date() == .distantFuture)
    #expect(copy.preferredLanguages == ["fr"])
  }

  @Test func everyFieldCanBeSet() {
    var world = World.mock
    let zone = TimeZone(identifier: "Asia/Tokyo")!
    let store = KeyValueStore.inMemory()
    store.set(1, forKey: "marker")
    let id = UUID()
    world.date = { .distantPast }
    world.calendar = Calendar(identifier: .japanese)
    world.locale = Locale(identifier: "ja_JP")
    world.timeZone = zone
    world.preferredLanguages = ["ja", "en"]
    world.uuid = { id }
    world.storage = store
    #expect(world.date() == .distantPast)
    #expect(world.calendar.identifier == .japanese)
    #expect(world.locale.identifier == "ja_JP")
    #expect(world.timeZone == zone)
    #expect(world.preferredLanguages == ["ja", "en"])
    #expect(world.uuid() == id)
    #expect(world.storage.value(forKey: "marker", as: Int.self) == 1)
  }

  @Test func theCalendarFollowsTheWorldsTimeZoneAndLocale() {
    var world = World.mock
    let honolulu = TimeZone(identifier: "Pacific/Honolulu")!
    world.timeZone = honolulu
    world.locale = Locale(identifier: "es_ES")
    #expect(world.calendar.timeZone == honolulu)
    #expect(world.calendar.locale?.identifier == "es_ES")

    var buddhist = Calendar(identifier: .buddhist)
    buddhist.timeZone = TimeZone(identifier: "Asia/Bangkok")!
    buddhist.locale = Locale(identifier: "th_TH")
    world.calendar = buddhist
    #expect(world.calendar.identifier == .buddhist)
    #expect(world.calendar.timeZone == honolulu)
    #expect(world.calendar.locale?.identifier == "es_ES")
    #expect(world.timeZone == honolulu)
    // 2018-09-14 03:00 UTC is 17:00 on the 13th in Honolulu, in the Buddhist year 2561.
    let date = Date(timeIntervalSince1970: 1_536_894_000)
    #expect(world.calendar.component(.hour, from: date) == 17)
    #expect(world.calendar.component(.day, from: date) == 13)
    #expect(world.calendar.component(.year, from: date) == 2561)
  }

  @Test func emptyPreferredLanguagesAreAllowed() {
    var world = World.mock
    world.preferredLanguages = []
    #expect(world.preferredLanguages.isEmpty)
  }

  @Test func aWorldReleasesWhatItsClosuresCapture() {
    weak var weakTracked: Canary?
    var world = World.mock
    do {
      let tracked = Canary()
      weakTracked = tracked
      world.date = { [tracked] in
        _ = tracked; return .distantPast
      }
      world.uuid = { [tracked] in
        _ = tracked; return UUID()
      }
    }
    #expect(weakTracked != nil)
    world.date = { .distantFuture }
    world.uuid = { UUID() }
    #expect(weakTracked == nil)
  }

  @Test func fieldsAreSafeToReadAndWriteFromManyThreads() {
    // Every thread starts from the same world, so they share its fields and its store.
    let store = KeyValueStore.inMemory()
    var shared = World.mock
    shared.storage = store
    DispatchQueue.concurrentPerform(iterations: 8) { [shared] thread in
      var world = shared
      for round in 0..<500 {
        world.preferredLanguages = ["x-\(thread)-\(round)"]
        world.storage.set(round, forKey: "\(thread)-\(round)")
        _ = world.uuid()
      }
    }
    var keys = 0
    for thread in 0..<8 {
      for round in 0..<500 where store.value(forKey: "\(thread)-\(round)", as: Int.self) == round {
        keys += 1
      }
    }
    #expect(keys == 8 * 500)
  }

  @Test func aDeinitRunBySettingAFieldCanReadAndAssignCurrent() {
    withWorld(.mock) {
      let seen = Recorder<UUID>()
      var world = World.mock
      do {
        let probe = OnDeinit {
          seen.record(Current.uuid())
          Current.uuid = { UUID(uuid: (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
        }
        world.uuid = { [probe] in
          _ = probe
          return UUID()
        }
      }
      world.uuid = { UUID() }  // releases the closure that holds the probe
      #expect(seen.all.map(\.uuidString) == ["00000000-0000-0000-0000-000000000000"])
      #expect(Current.uuid().uuidString == "01000000-0000-0000-0000-000000000000")
    }
  }

  @Test func aChainOfWorldsHeldThroughTheirClosuresIsFreedOnASmallStack() {
    // Each world's date holds the world before it. Releasing the last world used to free the
    // one before it inside it, and so on: 10,000 worlds overflowed a 512 KB stack.
    let length = stressVolume(full: 200_000, quick: 20_000)
    let freed = Recorder<Bool>()
    onSmallStack {
      weak var first: Marker?
      do {
        let marker = Marker()
        first = marker
        var world = World.mock
        world.date = {
          _ = marker; return .distantPast
        }
        for _ in 1..<length {
          let previous = world
          world.date = { previous.date() }
        }
      }
      freed.record(first == nil)
    }.wait()
    #expect(freed.all == [true])
  }
}

/// An object whose release a test watches.
private final class Marker: Sendable {}
