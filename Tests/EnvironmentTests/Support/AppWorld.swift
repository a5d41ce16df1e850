import Foundation
import TinyEnvironment
import TinyTestSupport

// An app's own fields, declared the way the guide shows: a client struct of closures, a key
// with live and mock values, and a property on World.

struct User: Equatable, Sendable {
  let name: String
}

struct APIError: Error, Equatable {
  let code: Int
}

/// A stand-in for an app's API client.
struct API: Sendable {
  var fetchCurrentUser: @Sendable () async throws -> User
}

enum APIKey: WorldKey {
  static var liveValue: API {
    API(fetchCurrentUser: { throw APIError(code: 503) })
  }
  static var mockValue: API {
    API(fetchCurrentUser: { User(name: "Mock") })
  }
}

/// An analytics event.
struct Event: Equatable, Sendable {
  let name: String
}

enum TrackKey: WorldKey {
  static var liveValue: @Sendable (Event) -> Void { { _ in } }
  static var mockValue: @Sendable (Event) -> Void { { _ in } }
}

/// A key that declares no mock value: a mock world must stop rather than call the live one.
enum LiveOnlyKey: WorldKey {
  static var liveValue: String { "live" }
}

extension World {
  var api: API {
    get { self[APIKey.self] }
    set { self[APIKey.self] = newValue }
  }

  var track: @Sendable (Event) -> Void {
    get { self[TrackKey.self] }
    set { self[TrackKey.self] = newValue }
  }
}
