import Foundation
import TinyTestSupport

#if canImport(Glibc)
  import Glibc
  private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
  import Darwin
  private let streamSocket = SOCK_STREAM
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests: plain sockets, no dependency.
///
/// It listens on an ephemeral port the system picks, answers every request with the same body,
/// records each request line, and closes each connection after one response. ``stop()`` (or
/// releasing the server) closes the listening socket and ends its thread.
final class LoopbackHTTPServer: @unchecked Sendable {  // safe: mutable state only under `lock`
  /// The port the server listens on.
  let port: UInt16
  private let listener: Int32
  private let lock = NSLock()
  private var stopped = false
  /// The request lines, written by the serving thread.
  private let requests = Recorder<String>()

  /// Starts a server that answers every request with `body`, as JSON.
  ///
  /// - Throws: `POSIXError` when the socket cannot be opened, bound or listened on.
  init(body: Data) throws {
    let listener = socket(AF_INET, streamSocket, 0)
    guard listener >= 0 else { throw POSIXError.current }
    var address = sockaddr_in()
    // No `sin_len` on Apple platforms: `bind` takes the length from its third argument.
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0  // ephemeral: the system picks a free port
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 16) == 0 else {
      let error = POSIXError.current
      close(listener)
      throw error
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(listener, $0, &length)
      }
    }
    self.listener = listener
    port = UInt16(bigEndian: address.sin_port)
    let response =
      Data(
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
          + "Connection: close\r\n\r\n").utf8) + body
    // The thread holds the socket and the log, not the server, so releasing the server stops it.
    let requests = requests
    Thread { Self.serve(on: listener, answering: response, logging: requests) }.start()
  }

  deinit {
    stop()
  }

  /// The request lines received so far, such as `GET /feed HTTP/1.1`.
  var requestLines: [String] {
    requests.all
  }

  /// Stops accepting connections and closes the listening socket. Idempotent.
  func stop() {
    lock.lock()
    let wasStopped = stopped
    stopped = true
    lock.unlock()
    if !wasStopped {
      shutdown(listener, Int32(SHUT_RDWR))  // wakes the blocked `accept`
      close(listener)
    }
  }

  /// Accepts connections one by one until the listening socket is shut down.
  private static func serve(
    on listener: Int32, answering response: Data, logging requests: Recorder<String>
  ) {
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      handle(connection, answering: response, logging: requests)
      close(connection)
    }
  }

  /// Reads one request's head and writes the response.
  private static func handle(
    _ connection: Int32, answering response: Data, logging requests: Recorder<String>
  ) {
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while received.range(of: Data("\r\n\r\n".utf8)) == nil {
      let count = read(connection, &buffer, buffer.count)
      guard count > 0 else { return }
      received.append(contentsOf: buffer[0..<count])
    }
    let head = String(decoding: received, as: UTF8.self)
    requests.record(head.components(separatedBy: "\r\n").first ?? "")
    response.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = write(connection, bytes.baseAddress! + offset, bytes.count - offset)
        guard written > 0 else { return }
        offset += written
      }
    }
  }
}

extension POSIXError {
  /// The error `errno` holds now.
  fileprivate static var current: POSIXError {
    POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
  }
}
