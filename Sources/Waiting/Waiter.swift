import Dispatch
import TinyInternals

/// Pauses a test, or any code, until asynchronous work says it has finished, or a timeout
/// passes.
///
/// Make a waiter, let the work call ``finish()`` when it is done (from any thread), and wait:
///
/// ```swift
/// let waiter = Waiter()
/// animate(duration: 0.2) { waiter.finish() }
/// #expect(await waiter.wait(timeout: .seconds(1)))    // Swift Testing, async code: true
/// XCTAssertTrue(waiter.wait(timeout: .seconds(1)))    // XCTest, synchronous code
/// ```
///
/// A waiter made with `Waiter(count: 3)` finishes at the third `finish()` call; calls beyond
/// the expected count change nothing and return `false`. Both waits return promptly after the
/// last expected call (well within a millisecond on an idle machine), `true` when it came in
/// time and `false` at the timeout. Which wait to use where:
///
/// - **Swift Testing and any `async` code:** `await wait(timeout:)`. It suspends the task and
///   blocks no thread; it returns `false` promptly when the task is cancelled.
/// - **XCTest's synchronous tests, apps' main thread, plain programs:** the synchronous
///   `wait(timeout:eachQuantum:)`. On the main thread it spins the main run loop, so main-queue
///   blocks and run-loop timers keep running while it waits; on other threads it blocks. It is
///   unavailable from `async` code, where blocking a thread can deadlock the awaited work.
///
/// A waiter is safe to use from any thread, and any number of waits, synchronous or
/// asynchronous, may wait on one waiter at once.
public final class Waiter: Sendable {

  /// The number of ``finish()`` calls that finish the waiter.
  ///
  /// ```swift
  /// Waiter(count: 3).expectedCount      // 3
  /// ```
  public let expectedCount: Int

  /// How often the synchronous wait runs its `eachQuantum` block while waiting.
  ///
  /// ```swift
  /// Waiter().quantum                    // .milliseconds(100)
  /// ```
  public let quantum: Duration

  /// What the waiter knows: the count, the waits and the finishing instant.
  typealias State = WaiterState<ContinuousClock.Instant, Suspension, DispatchSemaphore>

  /// The state, behind the waiter's lock.
  private let state: Locked<State>

  /// The clock that timestamps the finishing call and measures timeouts.
  let clock = ContinuousClock()

  /// Signalled when an `eachQuantum` run that the last ``finish()`` waits for returns.
  let quantumEnded = DispatchSemaphore(value: 0)

  /// Creates a waiter that finishes after `count` calls to ``finish()``.
  ///
  /// A `count` below 1 or a `quantum` that is not positive is a programmer error and stops the
  /// program with a message naming the bad value.
  ///
  /// ```swift
  /// let waiter = Waiter(count: 2, quantum: .milliseconds(50))
  /// waiter.finish()                     // true: one of two
  /// waiter.isFinished                   // false
  /// waiter.finish()                     // true
  /// waiter.isFinished                   // true
  /// ```
  ///
  /// - Parameters:
  ///   - count: The number of `finish()` calls to wait for; 1 by default.
  ///   - quantum: How often the synchronous wait runs its `eachQuantum` block; 0.1 s by
  ///     default.
  public init(count: Int = 1, quantum: Duration = .milliseconds(100)) {
    guard count >= 1 else {
      fatalError("Waiter(count:quantum:): count must be at least 1, got \(count)")
    }
    guard quantum > .zero else {
      fatalError("Waiter(count:quantum:): quantum must be positive, got \(quantum)")
    }
    expectedCount = count
    self.quantum = quantum
    state = Locked(WaiterState(expectedCount: count))
  }

  /// Records that one piece of the awaited work has finished; the call that completes the
  /// expected count wakes every wait.
  ///
  /// Call it from any thread, at any time, also before anyone waits. Calls beyond the
  /// expected count are ignored: they change nothing and return `false`, so work that reports
  /// twice does not break a test (use the return value to assert that it does not). The last
  /// expected call wakes the waits at once; if a synchronous wait on another thread is running
  /// its `eachQuantum` then, it returns after that run, so that none runs after it.
  ///
  /// ```swift
  /// let waiter = Waiter()
  /// waiter.finish()                     // true
  /// waiter.finish()                     // false: already finished
  /// ```
  ///
  /// - Returns: `true` when the call counted, `false` when the waiter had already finished.
  @discardableResult
  public func finish() -> Bool {
    let now = clock.now
    switch withState({ $0.finish(at: now, on: ThreadState.number) }) {
    case .extra:
      return false
    case .counted:
      return true
    case .finished(let suspended, let blocked, let wakesMainRunLoop, let runningQuanta):
      for suspension in suspended {
        suspension.timer?.cancel()
        // A timeout task that ran late (a busy machine) must not turn a late finish into true.
        suspension.continuation.resume(
          returning: State.isInTime(now, for: suspension.deadline))
      }
      for semaphore in blocked {
        semaphore.signal()
      }
      if wakesMainRunLoop {
        // `RunLoop.main.run(mode:before:)` returns as soon as main-queue work arrives.
        DispatchQueue.main.async {}
      }
      // So that no `eachQuantum` runs after this call returns, it waits for those running on
      // other threads; at most until their deadline, in case one waits for this thread.
      if let latest = runningQuanta.max() {
        for _ in runningQuanta {
          _ = quantumEnded.wait(timeout: DispatchTime(after: latest - clock.now))
        }
      }
      return true
    }
  }

  /// Whether the expected number of ``finish()`` calls has come.
  ///
  /// ```swift
  /// let waiter = Waiter()
  /// waiter.isFinished                   // false
  /// waiter.finish()
  /// waiter.isFinished                   // true
  /// ```
  public var isFinished: Bool {
    withState { $0.isFinished }
  }

  /// Runs `body` on the state with the lock held.
  func withState<Result>(
    _ body: (inout State) -> Result
  ) -> Result {
    state.withLock(body)
  }
}

extension Waiter {
  /// An asynchronous wait: the continuation to resume, its deadline, and the task that times
  /// it out.
  struct Suspension: Sendable {
    let continuation: CheckedContinuation<Bool, Never>
    let deadline: ContinuousClock.Instant
    var timer: Task<Void, Never>?
  }
}
