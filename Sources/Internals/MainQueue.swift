import Dispatch

/// Knows whether the current code runs on the main queue, by a queue-specific key.
///
/// `Thread.isMainThread` is not the test: on Linux the main queue may be drained by a worker
/// thread (Swift Testing runs `@MainActor` tests that way), and main-actor code runs there. A
/// serial queue that targets the main queue counts as the main queue, and so does plain code on
/// the main thread (libdispatch makes the main queue current there).
package enum MainQueue {
  private static let key = DispatchSpecificKey<Bool>()

  /// Sets the key on the main queue, once (a global's lazy initialization is thread-safe).
  private static let marked: Bool = {
    DispatchQueue.main.setSpecific(key: key, value: true)
    return true
  }()

  /// Whether the caller runs on the main queue.
  package static var isCurrent: Bool {
    marked && DispatchQueue.getSpecific(key: key) == true
  }
}
