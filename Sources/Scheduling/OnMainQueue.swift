import Dispatch
import TinyInternals

/// Runs `work` on the main queue: at once if the caller is already on it, otherwise
/// asynchronously, after the work queued there before it.
///
/// "On the main queue" is read from a queue-specific key, never from `Thread.isMainThread`: a
/// serial queue that targets the main queue counts, and, as libdispatch makes the main queue
/// current on the main thread, so does plain code on the main thread. From anywhere else the
/// work is queued, and it runs whenever the main thread is free to drain the main queue: an
/// app's run loop; Swift Testing (its tests run off the main thread, and the main queue keeps
/// draining, also for `@MainActor` tests); an `async` XCTest test; a synchronous XCTest test
/// only while it waits (`wait(for:timeout:)`, `Waiter.wait`), since its body occupies the main
/// thread; a command-line tool only when its top-level code is `async` or it runs
/// `RunLoop.main.run()` / `dispatchMain()`. (Measured on Linux; on Apple platforms the same
/// rule follows from the same mechanism: the main thread's run loop or the concurrency
/// runtime's main executor drains the main queue.) From `async` code, use the standard
/// library's `await MainActor.run { … }` instead.
///
/// ```swift
/// onMainQueue { label.text = "done" }   // on the main queue: runs now; elsewhere: queued
/// ```
///
/// - Parameter work: The main-actor work to run.
public func onMainQueue(_ work: @escaping @MainActor @Sendable () -> Void) {
  if MainQueue.isCurrent {
    MainActor.assumeIsolated(work)
  } else {
    DispatchQueue.main.async(execute: work)
  }
}
