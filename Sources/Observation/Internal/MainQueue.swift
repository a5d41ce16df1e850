import Dispatch

/// Knows whether the current code runs on the main queue, by a queue-specific key.
///
/// `Thread.isMainThread` is not the test: on Linux the main queue may be drained by a worker
/// thread (Swift Testing runs `@MainActor` tests that way), and main-actor code runs there.
enum MainQueue {
  private static let key = DispatchSpecificKey<Bool>()

  private static let marked: Bool = {
    DispatchQueue.main.setSpecific(key: key, value: true)
    return true
  }()

  /// Whether the caller runs on the main queue.
  static var isCurrent: Bool {
    marked && DispatchQueue.getSpecific(key: key) == true
  }
}
