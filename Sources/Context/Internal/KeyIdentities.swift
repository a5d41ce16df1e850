import TinyInternals

/// Hands out the identities of ``ContextKey``s: 1, 2, 3, … in creation order.
enum KeyIdentities {
  /// The last identity handed out.
  private static let last = Locked<UInt64>(0)

  /// A new identity, never returned before in this process.
  static func next() -> UInt64 {
    last.withLock { last in
      last += 1
      return last
    }
  }
}
