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
      storage.withLock { $0.resolvingTask = task }
      do {
        fulfill(try await operation())
      } catch {
        reject(error)
      }
    }
  }

  // Two spellings of one getter: `nonisolated(nonsending)` (Swift 6.2) keeps the resolved
  // case on the caller's executor, with no hop; older compilers do not parse it.
  #if compiler(>=6.2)
    /// The promised value, awaited without blocking a thread.
    ///
    /// When the promise is already resolved this returns or throws at once, without suspending:
    /// no continuation is made, and (compiled with Swift 6.2 or later) no hop off the caller's
    /// executor. Otherwise the calling task suspends until the promise resolves. If that task
    /// is cancelled first, the getter stops waiting and throws `CancellationError`; the promise
    /// itself is unaffected and may still resolve for others.
    ///
    /// ```swift
    /// let items = try await api.feed(for: token).map(\.items).value
    /// ```
    ///
    /// - Throws: The error the promise was rejected with; `CancellationError` when the
    ///   awaiting task is cancelled while the promise is pending; ``PromiseCycleError`` when
    ///   the awaiting task runs the operation of ``init(operation:)`` that resolves this very
    ///   promise (it would wait for itself forever).
    nonisolated(nonsending) public var value: Value {
      get async throws {
        if !storage.isKnownFulfilled, let wait = try waitingID() {
          return try await suspendUntilResolved(wait)
        }
        // The slot was written before the promise was fulfilled, and never since.
        return storage.slot(of: Value.self).pointee
      }
    }
  #else
    /// The promised value, awaited without blocking a thread.
    ///
    /// When the promise is already resolved this returns or throws at once, without suspending:
    /// no continuation is made, and (compiled with Swift 6.2 or later) no hop off the caller's
    /// executor. Otherwise the calling task suspends until the promise resolves. If that task
    /// is cancelled first, the getter stops waiting and throws `CancellationError`; the promise
    /// itself is unaffected and may still resolve for others.
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
        if !storage.isKnownFulfilled, let wait = try waitingID() {
          return try await suspendUntilResolved(wait)
        }
        // The slot was written before the promise was fulfilled, and never since.
        return storage.slot(of: Value.self).pointee
      }
    }
  #endif

  /// What ``value`` reads under the lock when the promise is not known to be fulfilled
  /// (``PromiseStorage/isKnownFulfilled``; on Apple platforms, always): `nil` when it is
  /// fulfilled (its value is then set for good, so it may be read without the lock); while it is
  /// pending, a new callback identifier for the wait and the task that runs the promise's
  /// operation, if any, read under the same lock so that the slow path takes the lock once
  /// less; throws the error of a rejected promise. It names no type that depends on `Value`, so
  /// it needs no metadata lookup. Always inlined: as a call it added about 4 ns to each `value`
  /// that took it (measured here).
  @inline(__always)
  func waitingID() throws -> (id: UInt64, resolvingTask: Int?)? {
    let (phase, id, resolvingTask) = storage.withLock { state in
      (state.phase, state.isResolved ? 0 : state.makeID(), state.resolvingTask)
    }
    switch phase {
    case .fulfilled: return nil
    case .rejected(let error): throw error
    case .pending: return (id, resolvingTask)
    }
  }

  /// The slow path of ``value``: suspends until the promise resolves or the task is cancelled.
  /// The wait's identifier is known before the wait is registered, so a cancellation that
  /// arrives at any moment can take the wait back.
  func suspendUntilResolved(_ wait: (id: UInt64, resolvingTask: Int?)) async throws -> Value {
    let id = wait.id
    // Awaiting from the task that runs the promise's own operation would wait for itself.
    if let task = wait.resolvingTask, currentTaskNumber() == task { throw PromiseCycleError() }
    // Whoever takes the registered wait back out of the state (the resolution or the
    // cancellation) resumes it.
    return try await withTaskCancellationHandler {
      // Unchecked: the state hands the continuation to exactly one resumer (the resolution or
      // the cancellation), and keeping it bare saves a closure and a checked wrapper.
      try await withUnsafeThrowingContinuation { continuation in
        let result = storage.withLock { state -> Result<Value, any Error>? in
          if state.register(.task(SuspendedTask(continuation)), id: id) == .waiting { return nil }
          return storage.result(in: state, of: Value.self)
        }
        if let result { return continuation.resume(with: result) }
        // Cancelled before registering: the cancellation handler found nothing to take.
        if Task.isCancelled { cancelWaiting(id) }
      }
    } onCancel: {
      cancelWaiting(id)
    }
  }

  /// Resumes the waiting `value` getter registered under `id` with `CancellationError`, unless
  /// the promise resolved it first.
  func cancelWaiting(_ id: UInt64) {
    guard let resume = storage.withLock({ $0.unregister(id) }) else {
      return
    }
    withUnsafePointer(to: Result<Value, any Error>.failure(CancellationError())) {
      Self.run(resume, with: $0)
    }
  }
}

/// The current task's hash, which tells it from every other task alive now (it hashes the
/// task's address); `nil` outside a task.
func currentTaskNumber() -> Int? {
  withUnsafeCurrentTask { $0?.hashValue }
}
