import Foundation
import Testing
import TinyTestSupport

/// The error that test promises are rejected with.
struct TestError: Error, Equatable {
  let code: Int

  init(_ code: Int = 0) {
    self.code = code
  }
}

/// Calls `finish` on a new thread of its own, `delay` seconds from now.
///
/// Not `DispatchQueue.global().asyncAfter`: the stress tests, which Swift Testing runs in
/// parallel with the rest, can keep the global queue's threads busy for hundreds of
/// milliseconds, and work that must finish on time must not queue behind them.
func finishOnNewThread(after delay: Double, _ finish: @escaping @Sendable () -> Void) {
  let thread = Thread {
    Thread.sleep(forTimeInterval: delay)
    finish()
  }
  thread.start()
}

/// A key that marks the main queue, so a callback can tell whether it runs on it.
private let mainQueueKey = DispatchSpecificKey<Bool>()

/// Whether the caller runs on the main queue (a queue-specific key, never
/// `Thread.isMainThread`: main-queue work can run off the main thread on Linux).
func isOnMainQueue() -> Bool {
  DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
  return DispatchQueue.getSpecific(key: mainQueueKey) == true
}

extension Result {
  /// The value, or `nil` for an error.
  var value: Success? {
    try? get()
  }

  /// The error as a `TestError`, or `nil`.
  var testError: TestError? {
    if case .failure(let error) = self { return error as? TestError }
    return nil
  }
}

/// Whether `result` is a failure carrying `CancellationError`.
func isCancellation<Value>(_ result: Result<Value, any Error>?) -> Bool {
  if case .failure(let error)? = result { return error is CancellationError }
  return false
}
