// Runs the feed watcher against a server of its own on 127.0.0.1: a refresh, a search and a
// mark-as-read, on the live world with the API pointed at that server. Exits 1 on any error.
import FeedKit
import Foundation
import TinyEnvironment
import TinyObservation
import TinyWaiting

let server = try FeedServer(feed: FeedItem.samples)
defer { server.stop() }

do {
  try await withWorld({ $0.feedAPI = .live(baseURL: server.baseURL) }) {
    try await withTimeout(.seconds(20)) {  // a hung request fails the run instead of hanging it
      let model = FeedModel()
      try await model.refresh()
      print("fetched \(model.items.value.count) items from \(server.baseURL)")
      print("unread: \(model.summary.value.unreadCount), \(model.summary.value.unreadMinutes) min")

      let found = Promise<[FeedItem]>()
      let token = model.results.watch { change in found.fulfill(change.new) }
      model.search("swift")  // runs once the typing pauses, 300 ms later
      let titles = try await found.value(timeout: .seconds(5)).map(\.title)
      token.cancel()
      print("search \"swift\": \(titles)")

      try await model.markRead(1)
      let unreadOnServer = server.feed.value.filter { !$0.isRead }.count
      print(
        "marked item 1 as read: \(model.summary.value.unreadCount) unread, \(unreadOnServer) on the server"
      )
    }
  }
} catch {
  print("feed-watcher failed: \(error)")
  exit(1)
}
