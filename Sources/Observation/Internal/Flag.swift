import TinyInternals

/// A flag raised and lowered from any thread: a watch's "stopped" mark, an atom's "a tracked
/// read may be waiting" mark. A leaf lock: nothing is called while it is held.
@usableFromInline
final class Flag: Sendable {
  private let raised = Locked(false)

  init() {}

  /// Whether the flag is up.
  @usableFromInline var isRaised: Bool {
    raised.withLock { $0 }
  }

  /// Raises the flag; returns whether this call raised it (it was down).
  @discardableResult
  func raise() -> Bool {
    raised.withLock { raised in
      defer { raised = true }
      return !raised
    }
  }

  /// Lowers the flag; returns whether it was up.
  func lower() -> Bool {
    raised.withLock { raised in
      defer { raised = false }
      return raised
    }
  }
}
