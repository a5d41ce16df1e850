import Foundation

/// Hands out the identities of ``ContextKey``s: 1, 2, 3, … in creation order.
enum KeyIdentities {
  /// The last identity handed out, behind its lock.
  private final class Counter: @unchecked Sendable {  // safe: `last` is only touched under `lock`
    let lock = NSLock()
    var last: UInt64 = 0
  }

  private static let counter = Counter()

  /// A new identity, never returned before in this process.
  static func next() -> UInt64 {
    counter.lock.holding {
      counter.last += 1
      return counter.last
    }
  }
}
