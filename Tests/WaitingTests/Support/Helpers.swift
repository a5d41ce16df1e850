import Foundation
import Testing

/// The error that test promises are rejected with.
struct TestError: Error, Equatable {
  let code: Int

  init(_ code: Int = 0) {
    self.code = code
  }
}

/// A lock-protected list that `@Sendable` callbacks on any thread can append to.
// Safe: `elements` is only touched under `lock`.
final class Recorder<Element: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var elements: [Element] = []

  func append(_ element: Element) {
    lock.lock()
    defer { lock.unlock() }
    elements.append(element)
  }

  /// Empties the list and returns what it held.
  func removeAll() -> [Element] {
    lock.lock()
    defer { lock.unlock() }
    defer { elements = [] }
    return elements
  }

  var all: [Element] {
    lock.lock()
    defer { lock.unlock() }
    return elements
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

/// Runs `body` on a new `Thread` (not a cooperative pool thread, which must never block) and
/// returns its result without blocking the caller.
func onNewThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.start()
  }
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
