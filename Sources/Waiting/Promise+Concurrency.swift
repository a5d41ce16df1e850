extension Promise {
  /// Creates a promise resolved by an asynchronous operation, which starts at once in a new
  /// task.
  ///
  /// The operation runs in an unstructured `Task` (it inherits the caller's priority and task
  /// locals, not its actor): its value fulfils the promise, and an error it throws rejects it.
  /// The task holds the promise until the operation returns; a promise has no cancellation,
  /// so dropping the promise does not stop the operation.
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
  /// (no continuation is made). Otherwise the calling task suspends until the promise resolves.
  /// If that task is cancelled first, the getter stops waiting and throws `CancellationError`;
  /// the promise itself is unaffected and may still resolve for others.
  ///
  /// ```swift
  /// let items = try await api.feed(for: token).map(\.items).value
  /// ```
  ///
  /// - Throws: The error the promise was rejected with, or `CancellationError` when the
  ///   awaiting task is cancelled while the promise is pending.
  public var value: Value {
    get async throws {
      if let result { return try result.get() }
      return try await suspendUntilResolved()
    }
  }

  /// The slow path of ``value``: suspends until the promise resolves or the task is cancelled.
  private func suspendUntilResolved() async throws -> Value {
    // The identifier is known before the callback is registered, so a cancellation that
    // arrives at any moment can take the callback back; whoever takes it resumes.
    let id = state.withLock { $0.makeID() }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let resume: Callback = { continuation.resume(with: $0) }
        if case .runNow(let result) = state.withLock({ $0.register(resume, id: id) }) {
          resume(result)
        } else if Task.isCancelled {
          // Cancelled before registering: the cancellation handler found nothing to take.
          cancelWaiting(id)
        }
      }
    } onCancel: {
      cancelWaiting(id)
    }
  }

  /// Resumes the waiting `value` getter registered under `id` with `CancellationError`, unless
  /// the promise resolved it first.
  private func cancelWaiting(_ id: UInt64) {
    state.withLock { $0.unregister(id) }?(.failure(CancellationError()))
  }
}
