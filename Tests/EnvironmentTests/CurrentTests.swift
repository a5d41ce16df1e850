import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// Tests that change the global world. They restore it before they end, and other tests never
/// depend on what the global world is (they tell worlds apart by unique markers).
@Suite(.serialized, .timeLimit(suiteTimeLimit), .watchdog) struct CurrentTests {
  @Test func outsideAnyScopeAssignmentsChangeTheGlobalWorld() async {
    let saved = Current
    defer { Current = saved }
    let (world, marker) = markedWorld()
    Current = world
    #expect(currentMarker == marker)
    #expect(await Task.detached { currentMarker }.value == marker)
    #expect(onNewThreadBlocking { currentMarker } == marker)
    Current.date = { .distantPast }
    #expect(onNewThreadBlocking { Current.date() } == .distantPast)
    withWorld(.mock) { #expect(currentMarker == nil) }
    #expect(currentMarker == marker)
  }

  @Test func assignmentsInsideAScopeLeaveTheGlobalWorldAlone() {
    let (world, marker) = markedWorld()
    withWorld(.mock) {
      Current = world
      #expect(currentMarker == marker)
    }
    #expect(onNewThreadBlocking { currentMarker } != marker)
    #expect(currentMarker != marker)
  }

  // The talk's example, outside every scope: the modifying form starts from the global world,
  // whatever it is.

  @Test func theTalksExampleOnTheLiveWorld() async {
    // Every test restores the global world, which the process starts with as World.live.
    let before = Date()
    let (date, locale, key) = withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
      (Current.date(), Current.locale.identifier, Current[LiveOnlyKey.self])
    }
    #expect(date >= before && date <= Date())  // the live clock
    #expect(locale == "es_ES")
    #expect(key == "live")  // a live world gives a key's live value
    let asyncLocale = await withWorld({ $0.locale = Locale(identifier: "es_ES") }) { () async in
      await Task.yield()
      return Current.locale.identifier
    }
    #expect(asyncLocale == "es_ES")
  }

  @Test func theTalksExampleOnAChangedLiveWorld() async {
    let saved = Current
    defer { Current = saved }
    let (world, marker) = markedWorld(.live)
    Current = world
    Current.date = { .distantPast }
    withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
      #expect(currentMarker == marker)
      #expect(Current.date() == .distantPast)
      #expect(Current.locale.identifier == "es_ES")
      #expect(Current[LiveOnlyKey.self] == "live")
    }
    await withWorld({ $0.locale = Locale(identifier: "es_ES") }) { () async in
      await Task.yield()
      #expect(currentMarker == marker)
      #expect(Current.locale.identifier == "es_ES")
    }
    #expect(currentMarker == marker)
  }

  @Test func theTalksExampleOnAMockWorld() async {
    let saved = Current
    defer { Current = saved }
    let (world, marker) = markedWorld()
    Current = world
    withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
      #expect(currentMarker == marker)
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 0))
      #expect(Current.locale.identifier == "es_ES")
      #expect(Current.uuid() == UUID(uuidString: "00000000-0000-0000-0000-000000000000"))
    }
    await withWorld({ $0.date = { .distantFuture } }) { () async in
      await Task.yield()
      #expect(currentMarker == marker)
      #expect(Current.date() == .distantFuture)
    }
    #expect(Current.locale.identifier == "en_US")
  }

  @Test func theGlobalWorldStartsLive() throws {
    // Every test restores the global world, which the process starts with as World.live.
    let before = Date()
    let now = onNewThreadBlocking { Current.date() }
    let after = Date()
    #expect(now >= before && now <= after)
    #expect(onNewThreadBlocking { Current.uuid() } != onNewThreadBlocking { Current.uuid() })
  }

  @Test func readsAndWritesOfTheGlobalWorldFromManyThreadsAreSafe() {
    let saved = Current
    defer { Current = saved }
    let threads = 8
    let rounds = 1_000
    let validReads = Counter()
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for round in 0..<rounds {
        if round.isMultiple(of: 10) {
          var world = World.mock
          world.preferredLanguages = ["x-\(thread)"]
          Current = world
        }
        let languages = Current.preferredLanguages
        if languages.count == 1, languages[0].hasPrefix("x-") {
          validReads.increment()
        }
      }
    }
    #expect(validReads.value == threads * rounds)
  }

  @Test func aDeinitRunByAssigningTheGlobalWorldCanReadAndAssignCurrent() {
    let saved = Current
    defer { Current = saved }
    let seen = Recorder<String?>()
    do {
      let probe = OnDeinit {
        seen.record(currentMarker)
        Current.preferredLanguages = ["x-set-by-deinit"]
      }
      var (world, _) = markedWorld()
      world.date = { [probe] in
        _ = probe
        return .distantPast
      }
      Current = world
    }
    let (next, nextMarker) = markedWorld()
    Current = next  // releases the old world, whose closure holds the probe
    // The deinit ran after the assignment took effect, and its own assignment stuck.
    #expect(seen.all == [nextMarker])
    #expect(Current.preferredLanguages == ["x-set-by-deinit"])
  }

  @Test func aGlobalWorldReplacedDuringAReadOfItLivesUntilTheReadEnds() {
    let saved = Current
    defer { Current = saved }
    expectAWorldReplacedDuringAReadToLiveUntilTheReadEnds(freedAtOnce: false)
  }
}
