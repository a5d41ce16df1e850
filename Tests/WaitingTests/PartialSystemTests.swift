import Foundation
import TinyWaiting
import Testing
import XCTest
import TinyTestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The classic "partial system test": the real client against a real (tiny, local) server,
/// instead of a mocked response, with a waiter holding the test until the completion handler
/// has run. It is the closing example of Docs/Reference/Waiting.md, in both forms: keep them
/// alike.
final class PartialSystemTests: WatchedTestCase {
  /// The client under test: fetches a feed and hands its items to a completion handler.
  struct FeedClient {
    struct Feed: Decodable {
      let items: [String]
    }

    let baseURL: URL
    let session: URLSession

    func fetchItems(completion: @escaping @Sendable (Result<[String], any Error>) -> Void) {
      let task = session.dataTask(with: baseURL.appendingPathComponent("feed")) { data, _, error in
        completion(
          Result {
            if let error { throw error }
            return try JSONDecoder().decode(Feed.self, from: data ?? Data()).items
          })
      }
      task.resume()
    }
  }

  /// A server answering with `items`, and a client pointed at it; `close()` ends both.
  struct Fixture {
    let server: LoopbackHTTPServer
    let session = URLSession(configuration: .ephemeral)
    let client: FeedClient

    init(items: [String]) throws {
      server = try LoopbackHTTPServer(body: try JSONEncoder().encode(["items": items]))
      client = FeedClient(
        baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, session: session)
    }

    func close() {
      session.invalidateAndCancel()
      server.stop()
    }
  }

  func testTheClientFetchesTheFeedFromARealServer() throws {
    let fixture = try Fixture(items: ["tea", "scones"])
    defer { fixture.close() }

    let waiter = Waiter()
    let received = Promise<[String]>()
    fixture.client.fetchItems { result in
      received.resolve(with: result)
      waiter.finish()
    }
    XCTAssertTrue(waiter.wait(timeout: helperTimeout))

    XCTAssertEqual(try received.result?.get(), ["tea", "scones"])
    XCTAssertEqual(fixture.server.requestLines, ["GET /feed HTTP/1.1"])
  }
}

/// The same test in Swift Testing, where the wait must be `await`ed.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PartialSystemAsyncTests {
  @Test func theClientFetchesTheFeedFromARealServer() async throws {
    let fixture = try PartialSystemTests.Fixture(items: ["tea", "scones"])
    defer { fixture.close() }

    let waiter = Waiter()
    let received = Promise<[String]>()
    fixture.client.fetchItems { result in
      received.resolve(with: result)
      waiter.finish()
    }
    #expect(await waiter.wait(timeout: helperTimeout))

    #expect(try received.result?.get() == ["tea", "scones"])
    #expect(fixture.server.requestLines == ["GET /feed HTTP/1.1"])
  }

  @Test func theCompletionHandlerRunsExactlyOnce() async throws {
    let fixture = try PartialSystemTests.Fixture(items: ["coffee"])
    defer { fixture.close() }

    let waiter = Waiter()
    let received = Recorder<Result<[String], any Error>>()
    fixture.client.fetchItems { result in
      received.record(result)
      waiter.finish()
    }
    #expect(await waiter.wait(timeout: helperTimeout))
    #expect(try received.all.map { try $0.get() } == [["coffee"]])
  }
}
