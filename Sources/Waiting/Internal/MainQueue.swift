import Dispatch

/// Tells whether the caller runs on the main queue, with a queue-specific key (never
/// `Thread.isMainThread`: on Linux main-queue work may run on another thread).
enum MainQueue {
  /// The key, set on the main queue the first time it is read.
  private static let key: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  /// Whether the caller is running a main-queue block.
  static var isCurrent: Bool {
    DispatchQueue.getSpecific(key: key) == true
  }
}
