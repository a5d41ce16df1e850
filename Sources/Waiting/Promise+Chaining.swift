extension Promise {
  /// Creates a promise already resolved with `result`.
  ///
  /// ```swift
  /// Promise<Int>(result: .success(1)).result   // success(1)
  /// ```
  ///
  /// - Parameter result: The value or the error.
  public convenience init(result: Result<Value, any Error>) {
    switch result {
    case .success(let value): self.init(value: value)
    case .failure(let error): self.init(error: error)
    }
  }

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
    // Already resolved: no callback, no metadata for a `Result` (this is the hot path).
    switch storage.withLock({ $0.phase }) {
    case .fulfilled:
      let value = storage.slot(of: Value.self).pointee  // set for good once fulfilled
      do {
        return Promise<NewValue>(value: try transform(value))
      } catch {
        return Promise<NewValue>(error: error)
      }
    case .rejected(let error):
      return Promise<NewValue>(error: error)
    case .pending:
      break
    }
    let mapped = Promise<NewValue>()
    addCallback({ result in
      mapped.settle(
        with: Self.resolution(at: result).flatMap { value in Result { try transform(value) } })
    })
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
    // Already resolved: the step runs now, with no callback to store.
    switch storage.withLock({ $0.phase }) {
    case .fulfilled:
      do {
        // The slot is set for good once the promise is fulfilled.
        return try next(storage.slot(of: Value.self).pointee).followed()
      } catch {
        return Promise<NewValue>(error: error)
      }
    case .rejected(let error):
      return Promise<NewValue>(error: error)
    case .pending:
      break
    }
    let chained = Promise<NewValue>()
    addCallback({ result in
      switch Self.resolution(at: result) {
      case .success(let value):
        do {
          let step = try next(value)
          guard step !== chained else {
            return chained.settle(with: .failure(PromiseCycleError()))
          }
          step.addCallback({ chained.settle(with: Promise<NewValue>.resolution(at: $0)) })
        } catch {
          chained.settle(with: .failure(error))
        }
      case .failure(let error):
        chained.settle(with: .failure(error))
      }
    })
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
    switch storage.withLock({ $0.phase }) {
    case .fulfilled:
      return Promise(value: storage.slot(of: Value.self).pointee)  // set for good once fulfilled
    case .rejected(let error):
      do {
        return Promise(value: try recovery(error))
      } catch {
        return Promise(error: error)
      }
    case .pending:
      break
    }
    let recovered = Promise<Value>()
    addCallback({ result in
      recovered.settle(
        with: Self.resolution(at: result).flatMapError { error in Result { try recovery(error) } })
    })
    return recovered
  }

  /// A promise that resolves as this one does: this very promise when it is resolved already
  /// (nothing is left to wait for, and it can never change), else a new promise that follows
  /// it, so that whoever holds the result cannot resolve this one.
  func followed() -> Promise<Value> {
    if isResolved { return self }
    let follower = Promise()
    addCallback({ follower.settle(with: Self.resolution(at: $0)) })
    return follower
  }
}
