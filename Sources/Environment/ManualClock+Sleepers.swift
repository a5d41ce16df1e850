import Foundation
import TinyInternals

extension ManualClock {
  /// Waits until at least `count` tasks sleep on the clock, or `timeout` passes in real time.
  ///
  /// Use it before advancing, so that a task that was just started has reached its sleep:
  ///
  /// ```swift
  /// let poller = Task { await poll() }
  /// await clock.waitForSleepers()
  /// ```
  ///
  /// - Parameters:
  ///   - count: How many sleepers to wait for; 1 by default. Zero or less returns at once.
  ///   - timeout: The longest to wait, in real time; 60 seconds by default.
  /// - Returns: `true` once the clock has `count` sleepers; `false` at the timeout, or at once
  ///   when the task is cancelled (before or during the wait) with fewer sleepers.
  @discardableResult
  public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(60)) async -> Bool {
    let id = state.withLock { state -> UInt64 in
      defer { state.nextID += 1 }
      return state.nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        // What to return at once, or `nil` once the wait is registered.
        let answer = state.withLock { state -> Bool? in
          guard state.sleepers.count < count else { return true }
          // Checked under the lock that the cancellation handler takes: a cancellation either
          // comes before this (and is seen here) or finds the arrival below.
          if Task.isCancelled { return false }
          state.arrivals.append((id, count, continuation))
          return nil
        }
        if let answer { return continuation.resume(returning: answer) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout.seconds) { [weak self] in
          self?.endWaitForSleepers(id)
        }
      }
    } onCancel: {
      endWaitForSleepers(id)
    }
  }

  /// Ends the `waitForSleepers` call `id` with `false`, unless it has ended.
  private func endWaitForSleepers(_ id: UInt64) {
    let ended = state.withLock { state -> CheckedContinuation<Bool, Never>? in
      guard let index = state.arrivals.firstIndex(where: { $0.id == id }) else { return nil }
      return state.arrivals.remove(at: index).continuation
    }
    ended?.resume(returning: false)
  }
}
