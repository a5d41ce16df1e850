extension Waiter {
  /// Waits, suspending the calling task, until the waiter finishes, `timeout` passes or the task
  /// is cancelled.
  ///
  /// It blocks no thread, so it is the wait for Swift Testing, for any `async` code and for
  /// main-actor code (the main actor stays free for the work being awaited). It returns `true`
  /// as soon as the waiter finishes (at once, without suspending, when it already has), and
  /// `false` at the timeout. As with the synchronous wait, the result says whether the last
  /// `finish()` came before the deadline, however late the timeout task gets to run. When the
  /// task is cancelled while the waiter is unfinished, it returns `false` promptly; a task
  /// already cancelled on entry gets ``isFinished`` at once. A `timeout` of zero or less does
  /// not wait: it returns `isFinished`.
  ///
  /// ```swift
  /// @Test func downloadCompletes() async {
  ///   let waiter = Waiter()
  ///   downloader.start { _ in waiter.finish() }
  ///   #expect(await waiter.wait(timeout: .seconds(1)))
  /// }
  /// ```
  ///
  /// Each wait uses one continuation and one sleeping task for the timeout; whichever of the
  /// last `finish()`, the timeout or the cancellation comes first resumes the wait exactly
  /// once and cancels the sleeping task, so neither outlives the wait.
  ///
  /// - Parameter timeout: How long to wait at most.
  /// - Returns: `true` when the waiter finished within `timeout`, else `false`.
  public func wait(timeout: Duration) async -> Bool {
    let deadline = clock.now + timeout
    guard timeout > .zero, !Task.isCancelled else { return isFinished }
    let id = withState { $0.makeID() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let suspension = Suspension(continuation: continuation, deadline: deadline, timer: nil)
        guard withState({ $0.suspend(suspension, id: id) }) else {
          return continuation.resume(returning: true)
        }
        // A cancellation that came before `suspend` found nothing to resume.
        if Task.isCancelled { return stopWaiting(id) }
        // The clock's sleep traps past about 292 years; no test waits that long.
        let wakeUp = Swift.min(deadline, clock.now + .seconds(100 * 365 * 24 * 3_600))
        let timer = Task { [weak self, clock] in
          do {
            try await Task.sleep(until: wakeUp, clock: clock)
          } catch {
            return  // cancelled: the wait was resumed another way
          }
          self?.stopWaiting(id)
        }
        let timed = withState { $0.updateSuspended(id) { $0.timer = timer } }
        if !timed { timer.cancel() }
      }
    } onCancel: {
      stopWaiting(id)
    }
  }

  /// Resumes the asynchronous wait `id` with `false` (timeout or cancellation), unless
  /// something resumed it first.
  private func stopWaiting(_ id: UInt64) {
    guard let suspension = withState({ $0.resume(id) }) else { return }
    suspension.timer?.cancel()
    suspension.continuation.resume(returning: false)
  }
}
