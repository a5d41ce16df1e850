import FeedKit
import Foundation
import TinyObservation

#if canImport(Glibc)
  import Glibc
  private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
  import Darwin
  private let streamSocket = SOCK_STREAM
#endif

/// A tiny feed server on 127.0.0.1, on a port the system picks: `GET /feed` answers the feed as
/// JSON, `POST /items/<id>/read` marks an item as read. One connection at a time, plain sockets.
final class FeedServer: Sendable {
  /// The feed as the server holds it.
  let feed: Atom<[FeedItem]>
  /// Where the endpoints are, such as `http://127.0.0.1:54321/`.
  let baseURL: URL
  private let listener: Int32

  /// Starts serving `feed` on a new thread.
  init(feed: [FeedItem]) throws {
    let listener = socket(AF_INET, streamSocket, 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0  // the system picks a free port
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let isListening = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && listen(listener, 8) == 0
          && getsockname(listener, $0, &length) == 0
      }
    }
    guard listener >= 0, isListening else { throw POSIXError(.EADDRNOTAVAIL) }
    baseURL = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/")!
    self.listener = listener
    self.feed = Atom(feed)
    let served = self.feed
    Thread {
      while case let connection = accept(listener, nil, nil), connection >= 0 {
        Self.answer(connection, serving: served)
        close(connection)
      }
    }.start()
  }

  /// Stops accepting connections.
  func stop() {
    shutdown(listener, Int32(SHUT_RDWR))  // ends the blocked `accept`
    close(listener)
  }

  /// Reads one request's head and writes the answer.
  private static func answer(_ connection: Int32, serving feed: Atom<[FeedItem]>) {
    var head = [UInt8]()
    var byte: UInt8 = 0
    while !head.ends(with: Array("\r\n\r\n".utf8)), read(connection, &byte, 1) == 1 {
      head.append(byte)
    }
    let requestLine = head.prefix { $0 != UInt8(ascii: "\r") }  // such as `GET /feed HTTP/1.1`
    let parts = String(decoding: requestLine, as: UTF8.self).split(separator: " ").map(String.init)
    var status = "404 Not Found"
    var body = Data()
    if parts.count == 3, parts[0] == "GET", parts[1] == "/feed" {
      (status, body) = ("200 OK", try! JSONEncoder().encode(feed.value))
    } else if parts.count == 3, parts[0] == "POST",
      let id = Int(parts[1].split(separator: "/").dropFirst().first ?? "")
    {
      feed.update { items in
        for index in items.indices where items[index].id == id { items[index].isRead = true }
      }
      status = "204 No Content"
    }
    let answer =
      Data("HTTP/1.1 \(status)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8)
      + body
    _ = answer.withUnsafeBytes { write(connection, $0.baseAddress!, $0.count) }
  }
}

extension Array where Element == UInt8 {
  /// Whether the bytes end with `suffix`.
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
