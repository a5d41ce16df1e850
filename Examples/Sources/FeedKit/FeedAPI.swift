import Foundation
import TinyEnvironment

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One article of the feed.
public struct FeedItem: Sendable, Equatable, Codable, Identifiable {
  /// The server's identifier of the item.
  public let id: Int
  /// The headline.
  public var title: String
  /// How long the article takes to read, in minutes.
  public var minutes: Int
  /// Whether the user has read it.
  public var isRead: Bool

  /// Creates an item.
  public init(id: Int, title: String, minutes: Int, isRead: Bool = false) {
    self.id = id
    self.title = title
    self.minutes = minutes
    self.isRead = isRead
  }
}

extension FeedItem {
  /// The feed the mock world's server returns: two unread items and one read item.
  public static let samples = [
    FeedItem(id: 1, title: "Swift concurrency in practice", minutes: 12),
    FeedItem(id: 2, title: "Testing time with a manual clock", minutes: 7),
    FeedItem(id: 3, title: "Swift on Linux servers", minutes: 5, isRead: true),
  ]
}

/// The feed server's API: one closure per endpoint, so a test replaces any of them.
public struct FeedAPI: Sendable {
  /// Fetches every item of the feed.
  public var fetchFeed: @Sendable () async throws -> [FeedItem]
  /// Tells the server that the user read the item with this identifier.
  public var markRead: @Sendable (_ id: FeedItem.ID) async throws -> Void

  /// Creates an API from its endpoints.
  public init(
    fetchFeed: @escaping @Sendable () async throws -> [FeedItem],
    markRead: @escaping @Sendable (_ id: FeedItem.ID) async throws -> Void
  ) {
    self.fetchFeed = fetchFeed
    self.markRead = markRead
  }

  /// The API of the server at `baseURL`, over HTTP: `GET feed` and `POST items/<id>/read`.
  ///
  /// - Parameters:
  ///   - baseURL: Where the server's endpoints are.
  ///   - session: The session that makes the requests.
  /// - Returns: An API whose calls throw ``FeedError`` for an answer that is not a success.
  public static func live(baseURL: URL, session: URLSession = .shared) -> FeedAPI {
    FeedAPI(
      fetchFeed: {
        let (data, response) = try await session.data(from: baseURL.appending(path: "feed"))
        try FeedError.check(response)
        return try JSONDecoder().decode([FeedItem].self, from: data)
      },
      markRead: { id in
        var request = URLRequest(url: baseURL.appending(path: "items/\(id)/read"))
        request.httpMethod = "POST"
        let (_, response) = try await session.data(for: request)
        try FeedError.check(response)
      })
  }
}

/// The error of a request the server did not answer with a success.
public struct FeedError: Error, Equatable {
  /// The HTTP status code of the answer.
  public var status: Int

  /// Creates the error of an answer with this status code.
  public init(status: Int) {
    self.status = status
  }

  /// Throws unless `response` is an HTTP answer with a 2xx status.
  static func check(_ response: URLResponse) throws {
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else { throw FeedError(status: status) }
  }
}

/// The world's feed API: the production server when live; canned answers when mocked.
enum FeedAPIKey: WorldKey {
  static let liveValue = FeedAPI.live(baseURL: URL(string: "https://feeds.example.com/")!)
  static let mockValue = FeedAPI(fetchFeed: { FeedItem.samples }, markRead: { _ in })
}

extension World {
  /// The feed server's API that the app calls, read as `Current.feedAPI`.
  ///
  /// A test replaces one endpoint in its world:
  ///
  /// ```swift
  /// withWorld(.mock) {
  ///   Current.feedAPI.fetchFeed = { throw FeedError(status: 503) }
  /// }
  /// ```
  public var feedAPI: FeedAPI {
    get { self[FeedAPIKey.self] }
    set { self[FeedAPIKey.self] = newValue }
  }
}
