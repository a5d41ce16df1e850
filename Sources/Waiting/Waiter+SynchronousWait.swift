import Dispatch
import Foundation
import TinyInternals

extension Waiter {
  /// Waits, blocking the calling thread, until the waiter finishes or `timeout` passes; on the
  /// main thread it keeps the main run loop running meanwhile.
  ///
  /// - **On the main thread** (XCTest's synchronous tests, an app's main thread, a plain
  ///   program's top level) it spins the main run loop with `RunLoop.run(mode:before:)` in the
  ///   default mode, in slices no longer than ``quantum``, so main-queue blocks and run-loop
  ///   timers — an animation's completion, a `Timer` — run during the wait. The last
  ///   ``finish()`` call posts an empty main-queue block, which ends the current slice at once.
  /// - **On any other thread** it blocks the thread without spinning (a thread without run-loop
  ///   sources returns from `run` at once, so spinning there would be a busy loop), and the last
  ///   `finish()` call wakes it directly.
  ///
  /// It returns `true` as soon as the waiter finishes (at once when it already has), and
  /// `false` at the timeout. The result says whether the last expected `finish()` call came
  /// before the deadline, so a thread that wakes late cannot turn a late finish into `true`. A
  /// `timeout` of zero or less does not wait: it returns ``isFinished``.
  ///
  /// `eachQuantum` runs on the waiting thread, before the wait returns, at each whole
  /// ``quantum`` since the wait began (0.1 s, 0.2 s, … by default) that passes before the
  /// deadline: never at the start, and never after the last `finish()`. Once the last
  /// `finish()` has returned, no run is in progress and none starts: a last `finish()` made on
  /// another thread while a run is in progress returns after that run has returned (so
  /// `eachQuantum` must not wait for the thread that makes it; if it does, that `finish()`
  /// gives up waiting at this wait's deadline). If the waiting thread falls behind by more than
  /// a quantum (a slow `eachQuantum`, a busy machine), it runs once as soon as it can and skips
  /// the quanta it missed.
  ///
  /// ```swift
  /// func testAnimationEnds() {          // XCTest, on the main thread
  ///   let waiter = Waiter()
  ///   UIView.animate(withDuration: 0.2, animations: { … }) { _ in waiter.finish() }
  ///   XCTAssertTrue(waiter.wait(timeout: .seconds(1)))   // true after about 0.2 s
  /// }
  /// ```
  ///
  /// It is unavailable from `async` code, and that is all the compiler checks: a synchronous
  /// function on the concurrency runtime's threads (a synchronous Swift Testing `@Test`, say)
  /// compiles it silently. Use `await wait(timeout:)` there: off the main thread this wait
  /// cannot spin the main run loop, and a blocked cooperative thread can deadlock the very work
  /// being awaited.
  ///
  /// Inside a main-queue block the main queue is busy with that block, so no other main-queue
  /// block can run until the wait returns (run-loop timers still fire on the main thread), and
  /// the wait checks for the last `finish()` every 10 ms instead of being woken by it. Waiting
  /// inside a main-queue block that runs off the main thread (as after `dispatchMain()`) blocks
  /// the main queue for the whole wait.
  ///
  /// - Parameters:
  ///   - timeout: How long to wait at most.
  ///   - eachQuantum: Runs on the waiting thread once per quantum of waiting; does nothing by
  ///     default.
  /// - Returns: `true` when the waiter finished within `timeout`, else `false`.
  @available(*, noasync, message: "blocks the thread; use 'await wait(timeout:)' in async code")
  public func wait(timeout: Duration, eachQuantum: () -> Void = {}) -> Bool {
    let start = clock.now
    guard timeout > .zero else { return isFinished }
    let deadline = start + timeout
    // The main run loop can be run only on its own thread, and only it drains the main queue
    // there. Being on the main queue or the main actor is not enough: both can run on other
    // threads on Linux. So this is the one question `Thread.isMainThread` answers right.
    let spinsMainRunLoop = Thread.isMainThread
    let thread = ThreadState.number
    // Inside a main-queue block the serial main queue cannot drain, so the block `finish()`
    // posts could not end a slice early. No queue-specific key can tell (libdispatch makes the
    // main queue current on the main thread from the start), so a probe block tells: once it
    // has run, the main queue drains during this wait; until then, slices stay short.
    let semaphore = DispatchSemaphore(value: 0)
    guard
      let id = withState({ $0.block(on: semaphore, spinsMainRunLoop: spinsMainRunLoop) })
    else { return true }
    defer { withState { $0.unblock(id) } }
    let mainQueueDrains = Promise<Void>()
    if spinsMainRunLoop { DispatchQueue.main.async { mainQueueDrains.fulfill() } }

    var nextQuantum = start + quantum
    while true {
      // The clock first: a finish that lands after this reading is still seen just below.
      let now = clock.now
      if let isInTime = withState({ $0.isInTime(for: deadline) }) { return isInTime }
      if now >= deadline { return false }
      if now >= nextQuantum {
        // The last finish() may have come since the check above: then no run starts. Once the
        // run is recorded, the last finish() returns only after it has returned.
        guard withState({ $0.beginQuantum(id, on: thread, deadline: deadline) }) else { continue }
        eachQuantum()
        if withState({ $0.endQuantum(id) }) { quantumEnded.signal() }
        let elapsedQuanta = ((now - start) / quantum).rounded(.down)
        nextQuantum = start + quantum * (elapsedQuanta + 1)
        continue
      }
      let longestSlice =
        spinsMainRunLoop && !mainQueueDrains.isResolved ? shortSlice : .seconds(3_600)
      let slice = Swift.min(deadline, nextQuantum, now + longestSlice) - now
      if !(spinsMainRunLoop && RunLoop.main.run(mode: .default, before: Date(after: slice))) {
        // Off the main thread, or the main run loop could not run: block instead.
        _ = semaphore.wait(timeout: DispatchTime(after: slice))
      }
    }
  }
}

/// The longest slice of the main run loop until the main queue is seen to drain (never, inside
/// a main-queue block): how late such a wait may notice the last `finish()`.
private let shortSlice = Duration.milliseconds(10)

extension Date {
  /// The date `duration` from now.
  fileprivate init(after duration: Duration) {
    self.init(timeIntervalSinceNow: duration.seconds)
  }
}

extension DispatchTime {
  /// The dispatch time `duration` from now.
  init(after duration: Duration) {
    self = .now() + .nanoseconds(duration.clampedNanoseconds)
  }
}
