import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// A key whose live value counts how often it is read. Only one test reads its live value, so
/// the count is exact even with tests running in parallel.
private enum ProbeKey: WorldKey {
  static let liveReads = Counter()
  static var liveValue: String {
    liveReads.increment()
    return "live"
  }
  static var mockValue: String { "mock" }
}

/// Keys that share their name, `Key`, in three scopes.
private enum FirstScope {
  enum Key: WorldKey {
    static var liveValue: String { "first live" }
    static var mockValue: String { "first mock" }
  }
}

private enum SecondScope {
  enum Key: WorldKey {
    static var liveValue: String { "second live" }
    static var mockValue: String { "second mock" }
  }
}

private enum ThirdScope {
  enum Key: WorldKey {
    static var liveValue: Int { 0 }
    static var mockValue: Int { 3 }
  }
}

/// One generic key whose specializations are distinct keys.
private enum TaggedKey<Tag>: WorldKey {
  static var liveValue: String { "\(Tag.self) live" }
  static var mockValue: String { "\(Tag.self) mock" }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldKeyTests {
  @Test func aWorldWithoutAValueGivesTheLiveOrMockValue() {
    let before = ProbeKey.liveReads.value
    #expect(World.mock[ProbeKey.self] == "mock")
    #expect(ProbeKey.liveReads.value == before)
    #expect(World.live[ProbeKey.self] == "live")
    #expect(ProbeKey.liveReads.value == before + 1)
  }

  @Test func aSetValueWinsAndStaysInItsWorld() {
    var world = World.live
    world[LiveOnlyKey.self] = "set"
    #expect(world[LiveOnlyKey.self] == "set")
    #expect(World.live[LiveOnlyKey.self] == "live")
    var mock = World.mock
    mock[LiveOnlyKey.self] = "set in the test"
    #expect(mock[LiveOnlyKey.self] == "set in the test")
  }

  @Test func appFieldsReadLikeBuiltInOnes() async throws {
    try await withWorld(.mock) { () async throws in
      #expect(try await Current.api.fetchCurrentUser() == User(name: "Mock"))
      Current.api.fetchCurrentUser = { User(name: "Ada") }
      #expect(try await Current.api.fetchCurrentUser() == User(name: "Ada"))
      Current.api.fetchCurrentUser = { throw APIError(code: 401) }
      await #expect(throws: APIError(code: 401)) { try await Current.api.fetchCurrentUser() }
    }
  }

  @Test func derivedWorldsKeepTheirDefaults() {
    var world = World.mock
    world.date = { .distantPast }
    #expect(world[ProbeKey.self] == "mock")
    withWorld(world) {
      withWorld({ $0.locale = Locale(identifier: "fr_FR") }) {
        #expect(Current[ProbeKey.self] == "mock")
      }
    }
  }

  @Test func analyticsEventsAreCapturedWithALockProtectedRecorder() {
    withWorld(.mock) {
      let events = Recorder<Event>()
      Current.track = events.record
      Current.track(Event(name: "login"))
      // Dispatch threads do not see the scope (task-locals stay in tasks): carry the world.
      let world = Current
      DispatchQueue.concurrentPerform(iterations: 4) { _ in
        withWorld(world) { Current.track(Event(name: "tap")) }
      }
      #expect(events.all.first == Event(name: "login"))
      #expect(events.all.count == 5)
    }
  }

  @Test func aMockWorldStopsWhenAKeyHasNoMockValue() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      withWorld(.mock) { _ = Current[LiveOnlyKey.self] }
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("LiveOnlyKey has no mockValue"))
  }

  @Test func aKeyWithoutAMockCanStillBeSetInAMockWorld() {
    withWorld(.mock) {
      Current[LiveOnlyKey.self] = "stub"
      #expect(Current[LiveOnlyKey.self] == "stub")
    }
  }

  @Test func keysWithTheSameNameInTwoScopesStayApart() {
    var world = World.mock
    #expect(world[FirstScope.Key.self] == "first mock")
    #expect(world[SecondScope.Key.self] == "second mock")
    #expect(world[ThirdScope.Key.self] == 3)
    world[FirstScope.Key.self] = "one"
    #expect(world[SecondScope.Key.self] == "second mock")
    world[SecondScope.Key.self] = "two"
    world[ThirdScope.Key.self] = 33
    #expect(world[FirstScope.Key.self] == "one")
    #expect(world[SecondScope.Key.self] == "two")
    #expect(world[ThirdScope.Key.self] == 33)
    // One generic key, two specializations: two keys.
    #expect(world[TaggedKey<Int>.self] == "Int mock")
    world[TaggedKey<Int>.self] = "for Int"
    #expect(world[TaggedKey<String>.self] == "String mock")
    #expect(World.live[TaggedKey<String>.self] == "String live")
    #expect(world[TaggedKey<Int>.self] == "for Int")
  }

  @Test func aDeinitRunByReplacingAKeysValueCanReadAndSetKeys() {
    withWorld(.mock) {
      let seen = Recorder<String>()
      do {
        let probe = OnDeinit {
          seen.record(Current[ProbeKey.self])
          Current[ProbeKey.self] = "set by deinit"
          Current.track = { _ in }
        }
        Current.track = { [probe] _ in _ = probe }
      }
      Current.track = { _ in }  // releases the closure that holds the probe
      #expect(seen.all == ["mock"])
      #expect(Current[ProbeKey.self] == "set by deinit")
    }
  }
}
