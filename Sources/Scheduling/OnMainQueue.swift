import Dispatch

/// Runs `work` on the main queue: at once if the caller is already on it, otherwise
/// asynchronously, after the work queued there before it.
///
/// "On the main queue" is read from a queue-specific key, never from `Thread.isMainThread`: a
/// serial queue that targets the main queue counts, and, as libdispatch makes the main queue
/// current on the main thread, so does plain code on the main thread. From anywhere else the
/// work is queued, and it runs only when something drains the main queue: an app's run loop,
/// `dispatchMain()`, or `RunLoop.main.run()` in a command-line tool. On Linux, a command-line
/// tool must drive the main queue itself, and in Swift Testing the main queue never drains.
/// From `async` code, use the standard library's `await MainActor.run { … }` instead.
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
