import Foundation
import Testing
import TinyTestSupport
import TinyWaiting

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
    // timing: the caller asks for a finish after a real delay, to test a real-clock timeout
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

  /// The error, or `nil` for a value.
  var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
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

/// The stack size of a dispatch worker thread on Apple platforms: the smallest stack that
/// promise work meets in practice.
let smallStackSize = 512 * 1024

/// Runs `body` on a new thread with a 512 KB stack and returns its result, without blocking the
/// caller's thread.
func onSmallStack<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.stackSize = smallStackSize
    thread.start()
  }
}

/// A task executor that runs nothing until the test says so: the jobs of a task started with
/// `Task(executorPreference:)` wait here until ``runUntilIdle()`` runs them on the calling
/// thread. When it returns, every such task has run as far as it can: it has finished, or it is
/// suspended, waiting for something outside the executor (a continuation, a sleep). After
/// ``runFreely()``, jobs run on their own, on Dispatch's global queue.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class ManualExecutor: TaskExecutor, Sendable {
  private let jobs = Recorder<UnownedJob>()
  private let isFree = Gate()

  func enqueue(_ job: consuming ExecutorJob) {
    jobs.record(UnownedJob(job))
    // Recorded first: a `runFreely()` that opens the gate after this check still finds it.
    if isFree.isOpen { flush() }
  }

  /// Runs the queued jobs, and those they queue, until none is left.
  func runUntilIdle() {
    while case let batch = jobs.removeAll(), !batch.isEmpty {
      for job in batch {
        job.runSynchronously(on: asUnownedTaskExecutor())
      }
    }
  }

  /// Lets every job, queued now or later, run on its own.
  func runFreely() {
    isFree.open()
    flush()
  }

  private func flush() {
    for job in jobs.removeAll() {
      DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
  }
}

/// The calling thread's `pthread_t` as a number (an integer or a pointer, one word either
/// way), to tell threads apart.
func currentThreadNumber() -> UInt {
  number(pthread_self())
}

/// A one-word value as a number.
private func number<Word>(_ word: Word) -> UInt {
  unsafeBitCast(word, to: UInt.self)
}
