import Foundation
import TinyEnvironment

// The app's own fields, declared once the way an app declares them: a client of closures, a
// key with its live and mock values, and a property on World.

struct TourUser: Sendable {
  let name: String
}

struct TourAPIError: Error, CustomStringConvertible {
  let status: Int
  var description: String { "HTTP \(status)" }
}

struct TourAPI: Sendable {
  var fetchCurrentUser: @Sendable () async throws -> TourUser
}

enum TourAPIKey: WorldKey {
  // The tour makes no network calls: its "live" server answers that nobody is logged in.
  static let liveValue = TourAPI(fetchCurrentUser: { throw TourAPIError(status: 401) })
  static let mockValue = TourAPI(fetchCurrentUser: { TourUser(name: "Mock User") })
}

enum TourAnalyticsKey: WorldKey {
  static let liveValue: @Sendable (String) -> Void = { _ in }
  static let mockValue: @Sendable (String) -> Void = { _ in }
}

extension World {
  var api: TourAPI {
    get { self[TourAPIKey.self] }
    set { self[TourAPIKey.self] = newValue }
  }

  var track: @Sendable (String) -> Void {
    get { self[TourAnalyticsKey.self] }
    set { self[TourAnalyticsKey.self] = newValue }
  }
}

/// A screen's logic: it reads the world only through `Current`.
func welcomeMessage() async -> String {
  do {
    let user = try await Current.api.fetchCurrentUser()
    Current.track("welcome shown")
    let today = Current.dateFormatter(dateStyle: .full, timeStyle: .none).string(
      from: Current.date())
    return "Welcome back, \(user.name)! Today is \(today)."
  } catch {
    Current.track("welcome failed: \(error)")
    return "We could not load your profile (\(error))."
  }
}

/// Strings recorded behind a lock so a `@Sendable` closure can append to them: analytics events
/// here, the actions that ran in the Scheduling chapter.
final class EventLog: @unchecked Sendable {  // safe: `events` is only touched under `lock`
  private let lock = NSLock()
  private var events: [String] = []

  func record(_ event: String) {
    lock.withLock { events.append(event) }
  }

  var recorded: [String] {
    lock.withLock { events }
  }
}

/// TinyEnvironment: the controllable world read through `Current`.
let environmentChapter = Chapter(
  title: "TinyEnvironment — one controllable world instead of singletons and Date()",
  problem: """
    Code that calls Date(), Locale.current or a network singleton directly cannot be tested
    at another time, in another language, or without a server. Here every one of those is a
    field of one World, read through Current, and replaced in a scope.
    """
) {
  say("Time travel, inside a scope so nothing else is affected:")
  withWorld(.live) {
    show("Current.date()", Current.date())
    let moonLanding = Date(timeIntervalSince1970: -14_182_940)
    Current.date = { moonLanding }  // allow-current-assignment
    show("Current.date = { moonLanding }; Current.date()", Current.date())
    Current.date = Date.init  // allow-current-assignment
    show("Current.date = Date.init; Current.date()", Current.date())
  }

  print()
  say("Code that sleeps for an hour, tested in an instant on the mock world's manual clock:")
  let realStart = ContinuousClock.now
  let clock = ManualClock()
  let (beforeAdvance, woke) = await withWorld(.mock) { () async -> (Int, Date?) in
    Current.clock = clock  // allow-current-assignment
    let reminder = Task { () async throws -> Date in
      try await Current.clock.sleep(for: .seconds(3600))
      return Current.date()
    }
    await clock.waitForSleepers()
    let sleeping = clock.sleeperCount
    await clock.advance(by: .seconds(3600))
    return (sleeping, try? await reminder.value)
  }
  show("clock.sleeperCount  // before advancing", beforeAdvance)
  show(
    "await clock.advance(by: .seconds(3600))", "the reminder woke at \(woke.map { "\($0)" } ?? "—")"
  )
  show("real time taken < 1 second", ContinuousClock.now - realStart < .seconds(1))

  print()
  say("A Spanish speaker in Honolulu using the Buddhist calendar:")
  var honolulu = World.mock
  honolulu.calendar = Calendar(identifier: .buddhist)
  try honolulu.setLocale(identifier: "es_ES")
  try honolulu.setTimeZone(identifier: "Pacific/Honolulu")
  honolulu.date = { Date(timeIntervalSince1970: 1_536_894_000) }  // 2018-09-14 03:00 UTC
  withWorld(honolulu) {
    show(
      "Current.dateFormatter().string(from: Current.date())",
      Current.dateFormatter().string(from: Current.date()))
    show(
      "Current.calendar.component(.year, from: …)",
      Current.calendar.component(.year, from: Current.date()))
  }
  do {
    var world = World.mock
    try world.setTimeZone(identifier: "Mars/Olympus")
  } catch {
    show("world.setTimeZone(identifier: \"Mars/Olympus\")", "throws \(error)")
  }

  print()
  say("The same screen logic, with a simulated logged-in user and a simulated API error:")
  let events = EventLog()
  var loggedIn = World.mock
  loggedIn.api.fetchCurrentUser = { TourUser(name: "Ada") }
  loggedIn.track = events.record
  var serverDown = loggedIn
  serverDown.api.fetchCurrentUser = { throw TourAPIError(status: 503) }
  await withWorld(loggedIn) {
    show("await welcomeMessage()  // logged in", await welcomeMessage())
  }
  await withWorld(serverDown) {
    show("await welcomeMessage()  // server down", await welcomeMessage())
  }
  show("events.recorded  // the captured analytics", events.recorded)

  print()
  say("Scopes follow tasks, so parallel work (and parallel tests) never see each other's world:")
  let greetings = await withWorld(.mock) { () async -> [String] in
    await threeWorlds()
  }
  show("three tasks, three worlds", greetings)

  print()
  say("A dispatch queue does not follow the scope; carry the world along:")
  let (direct, carried) = await withWorld(.mock) { () async -> (Bool, Bool) in
    Current.preferredLanguages = ["es"]  // allow-current-assignment
    let world = Current
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let direct = Current.preferredLanguages == ["es"]
        let carried = withWorld(world) { Current.preferredLanguages == ["es"] }
        continuation.resume(returning: (direct, carried))
      }
    }
  }
  show("queue.async { Current… }  // sees the scope?", direct)
  show("queue.async { withWorld(world) { Current… } }", carried)
}

/// Three child tasks, each in a world of its own made from the scope's.
func threeWorlds() async -> [String] {
  await withTaskGroup(of: String.self) { group in
    for (language, key) in [("es", "es_ES"), ("fr", "fr_FR"), ("ja", "ja_JP")] {
      group.addTask {
        withWorld({ $0.locale = Locale(identifier: key) }) {
          let name = Current.locale.localizedString(forLanguageCode: language) ?? language
          return "\(language): \(name)"
        }
      }
    }
    return await group.reduce(into: []) { $0.append($1) }.sorted()
  }
}
