import TinyInternals

extension Promise {
  /// Creates a promise resolved by an asynchronous operation, which starts at once in a new
  /// task.
  ///
  /// The operation runs in an unstructured `Task` (it inherits the caller's priority and task
  /// locals, not its actor): its value fulfils the promise, and an error it throws rejects it.
  /// The task holds the promise until the operation returns; a promise has no cancellation,
  /// so dropping the promise does not stop the operation. An operation that awaits
  /// ``value`` of this very promise would wait for its own end: that `value` throws
  /// ``PromiseCycleError`` at once instead (so, unless the operation catches it, the promise is
  /// rejected with it). Only the operation's own task is checked: a task it starts and does
  /// not wait for may await the promise, while a child task it waits for (`async let`, a task
  /// group) that awaits the promise is not detected and never ends.
  ///
  /// ```swift
  /// let feed = Promise { try await api.fetchFeed() }   // Promise<Feed>
  /// feed.map(\.items).whenResolved { print($0) }
  /// ```
  ///
  /// - Parameter operation: The work whose outcome resolves the promise.
  public convenience init(operation: @escaping @Sendable () async throws -> Value) {
    self.init()
    Task { [self] in
      let task = currentTaskNumber()
      state.withLock { $0.resolvingTask = task }
      do {
        fulfill(try await operation())
      } catch {
        reject(error)
      }
    }
  }

  /// The promised value, awaited without blocking a thread.
  ///
  /// When the promise is already resolved this returns or throws at once, without suspending
  /// on the promise. Otherwise the calling task suspends until the promise resolves. If that
  /// task is cancelled first, the getter stops waiting and throws `CancellationError`; the
  /// promise itself is unaffected and may still resolve for others.
  ///
  /// ```swift
  /// let items = try await api.feed(for: token).map(\.items).value
  /// ```
  ///
  /// - Throws: The error the promise was rejected with; `CancellationError` when the
  ///   awaiting task is cancelled while the promise is pending; ``PromiseCycleError`` when
  ///   the awaiting task runs the operation of ``init(operation:)`` that resolves this very
  ///   promise (it would wait for itself forever).
  public var value: Value {
    get async throws {
      // The wait's identifier is taken before the wait is registered, so that a cancellation
      // arriving at any moment can take the wait back.
      let (resolution, id, resolvingTask) = state.withLock { state in
        (state.resolution, state.isResolved ? 0 : state.makeID(), state.resolvingTask)
      }
      if let resolution { return try resolution.get(Value.self) }
      // Awaiting from the task that runs the promise's own operation would wait for itself.
      if let resolvingTask, currentTaskNumber() == resolvingTask { throw PromiseCycleError() }
      // Whoever takes the registered wait back out of the state (the resolution or the
      // cancellation) resumes it.
      let awaited = await withTaskCancellationHandler {
        // Unsafe, not checked: the state hands the continuation to exactly one resumer.
        await withUnsafeContinuation { continuation in
          let resolution = state.withLock { state in
            state.register(.task(continuation), id: id) == .waiting ? nil : state.resolution
          }
          if let resolution { return continuation.resume(returning: resolution) }
          // Cancelled before registering: the cancellation handler found nothing to take.
          if Task.isCancelled { cancelWaiting(id) }
        }
      } onCancel: {
        cancelWaiting(id)
      }
      return try awaited.get(Value.self)
    }
  }

  /// The promised value, awaited for at most `timeout` on `clock`.
  ///
  /// It returns or throws as ``value`` does, unless `clock` passes `timeout` first: then it
  /// stops waiting and throws ``TimeoutError``. The promise itself is not affected: it may
  /// still resolve later, and other waits and callbacks still get its resolution. A `timeout`
  /// of zero or less does not wait: it returns the value or throws the error when the promise
  /// is resolved, and throws `TimeoutError` at once when it is pending.
  ///
  /// ```swift
  /// let value = try await promise.value(timeout: .seconds(5), clock: Current.clock)
  /// ```
  ///
  /// - Parameters:
  ///   - timeout: How long to wait at most.
  ///   - clock: The clock that measures the timeout, as in
  ///     ``withTimeout(_:clock:operation:)``; the continuous clock by default.
  /// - Returns: The value.
  /// - Throws: ``TimeoutError`` when the timeout passes first; the error the promise was
  ///   rejected with; `CancellationError` when the awaiting task is cancelled first;
  ///   ``PromiseCycleError`` at once, as ``value`` does, when the awaiting task runs the
  ///   operation of ``init(operation:)`` that resolves this very promise.
  public func value(
    timeout: Duration, clock: any Clock<Duration> = ContinuousClock()
  ) async throws -> Value {
    let (resolution, resolvingTask) = state.withLock { ($0.resolution, $0.resolvingTask) }
    if let resolution { return try resolution.get(Value.self) }
    // Checked here, in the caller's task: `value` below runs in a child task of the timeout,
    // where awaiting the promise from its own operation would wait out the timeout instead.
    if let resolvingTask, currentTaskNumber() == resolvingTask { throw PromiseCycleError() }
    return try await withTimeout(timeout, clock: clock) { try await self.value }
  }

  /// Resumes the waiting `value` getter registered under `id` with `CancellationError`, unless
  /// the promise resolved it first.
  private func cancelWaiting(_ id: UInt64) {
    state.withLock { $0.unregister(id) }?(.rejected(CancellationError()))
  }
}
