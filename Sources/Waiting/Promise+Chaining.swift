extension Promise {
  /// Returns a promise for the value that `transform` makes from this promise's value.
  ///
  /// `transform` runs once, when this promise is fulfilled: on the thread that fulfils it, or
  /// at once, on this thread, when it is already fulfilled. A rejection skips `transform` and
  /// passes the error on; an error `transform` throws rejects the new promise. The new promise
  /// resolves on the same thread, after the callback that resolved this one (see
  /// ``fulfill(_:)``), so a chain of any length resolves as a loop.
  ///
  /// ```swift
  /// Promise(value: [1, 2, 3]).map(\.count).result        // success(3)
  /// Promise<[Int]>(error: FeedError.offline).map(\.count).result   // failure(offline)
  /// ```
  ///
  /// - Parameter transform: Makes the new value; it may throw.
  /// - Returns: A promise that resolves when this one does.
  public func map<NewValue: Sendable>(
    _ transform: @escaping @Sendable (Value) throws -> NewValue
  ) -> Promise<NewValue> {
    // Mapped now when resolved, so that the new promise is resolved when made (inside a
    // callback too, where a settle would wait for the callback to return).
    if let resolution { return Promise<NewValue>(resolved: resolution.map(Value.self, transform)) }
    let mapped = Promise<NewValue>()
    onResolution { mapped.settle($0.map(Value.self, transform)) }
    return mapped
  }

  /// Returns a promise for the outcome of the next asynchronous step, which `next` starts with
  /// this promise's value.
  ///
  /// `next` runs once, when this promise is fulfilled, on the same thread rules as ``map(_:)``,
  /// and returns the promise of the next step; the returned promise resolves as that one
  /// does. A rejection skips `next` and passes the error on; an error `next` throws rejects the
  /// returned promise. A step that returns the very promise `then` returned would wait for
  /// itself forever: that promise is rejected with ``PromiseCycleError`` instead.
  ///
  /// When this promise is fulfilled already and `next` returns a promise that is resolved
  /// already, that promise itself is returned: its outcome can no longer change. A pending step
  /// is never returned itself, so resolving the returned promise never resolves the step.
  ///
  /// ```swift
  /// api.authenticate()                  // Promise<Token>
  ///   .then { token in api.feed(for: token) }   // Promise<Feed>
  ///   .map(\.items)                     // Promise<[Item]>
  /// ```
  ///
  /// - Parameter next: Starts the next step; it may throw.
  /// - Returns: A promise that resolves when the next step does.
  public func then<NewValue: Sendable>(
    _ next: @escaping @Sendable (Value) throws -> Promise<NewValue>
  ) -> Promise<NewValue> {
    // Started now when resolved, so that a resolved step is returned as it is.
    if let resolution {
      do {
        return try next(resolution.get(Value.self)).followed()
      } catch {
        return Promise<NewValue>(error: error)
      }
    }
    let chained = Promise<NewValue>()
    onResolution { resolution in
      do {
        let step = try next(resolution.get(Value.self))
        guard step !== chained else { return chained.settle(.rejected(PromiseCycleError())) }
        step.onResolution { chained.settle($0) }
      } catch {
        chained.settle(.rejected(error))
      }
    }
    return chained
  }

  /// Returns a promise that turns this promise's error into a value with `recovery`.
  ///
  /// A fulfilled value passes through untouched and `recovery` never runs. On rejection,
  /// `recovery` runs once, on the same thread rules as ``map(_:)``, and its value fulfils the
  /// returned promise; an error it throws rejects it instead.
  ///
  /// ```swift
  /// Promise<[String]>(error: FeedError.offline).recover { _ in [] }.result   // success([])
  /// Promise(value: ["a"]).recover { _ in [] }.result                         // success(["a"])
  /// ```
  ///
  /// - Parameter recovery: Makes a value from the error; it may throw.
  /// - Returns: A promise that resolves when this one does.
  public func recover(
    _ recovery: @escaping @Sendable (any Error) throws -> Value
  ) -> Promise<Value> {
    if let resolution { return Promise(resolved: resolution.recover(recovery)) }
    let recovered = Promise<Value>()
    onResolution { recovered.settle($0.recover(recovery)) }
    return recovered
  }

  /// A promise that resolves as this one does: this very promise when it is resolved already
  /// (nothing is left to wait for, and it can never change), else a new promise that follows
  /// it, so that whoever holds the result cannot resolve this one.
  func followed() -> Promise<Value> {
    if isResolved { return self }
    let follower = Promise()
    onResolution { follower.settle($0) }
    return follower
  }
}
