import Dispatch

/// A value that arrives later: pending until it is fulfilled with a value or rejected with an
/// error, and then resolved for good.
///
/// The first resolution wins: ``fulfill(_:)``, ``reject(_:)`` and ``resolve(with:)`` return
/// `true` for it and `false`, changing nothing, for every later call. Callbacks registered with
/// ``whenResolved(_:)`` run exactly once — synchronously on the thread that resolves the
/// promise, in registration order, or at once on the registering thread when the promise is
/// already resolved — or on a queue you give with ``whenResolved(on:_:)``. No callback ever
/// runs on the main queue unless you ask for it.
///
/// ```swift
/// let user = Promise<String>()
/// user.whenResolved { result in print(result) }
/// user.fulfill("Ada")                 // true; prints success("Ada")
/// user.reject(LoginError.expired)     // false: already resolved
/// let name = try await user.value     // "Ada"
/// ```
///
/// A promise is safe to use from any thread. It keeps its callbacks only while pending and
/// drops them when it resolves, so a callback that captures the promise makes no lasting
/// retain cycle.
public final class Promise<Value: Sendable>: @unchecked Sendable {
  // Safe: the state is only reached with its lock held, and the value slot is written once,
  // with the lock held, before the state says fulfilled (see `PromiseStorage`).

  /// A registered callback (see `PromiseStorage`).
  typealias Callback = PromiseCallback

  /// The lock, the state (pending, fulfilled or rejected, and the callbacks waiting) and the
  /// value once fulfilled.
  let storage: PromiseStorage<Value>

  /// Creates a pending promise.
  ///
  /// ```swift
  /// let feed = Promise<[String]>()
  /// feed.isResolved                     // false
  /// ```
  public init() {
    storage = PromiseStorage(.pending)
  }

  /// Creates a promise already fulfilled with `value`.
  ///
  /// ```swift
  /// Promise(value: 42).result           // success(42)
  /// ```
  ///
  /// - Parameter value: The value.
  public init(value: Value) {
    storage = PromiseStorage(fulfilledWith: value)
  }

  /// Creates a promise already rejected with `error`.
  ///
  /// ```swift
  /// Promise<Int>(error: CancellationError()).isResolved   // true
  /// ```
  ///
  /// - Parameter error: The error.
  public init(error: any Error) {
    storage = PromiseStorage(.rejected(error))
  }

  /// Fulfils the promise with `value`, unless it is already resolved.
  ///
  /// The callbacks waiting for the promise run before this method returns, on this thread, in
  /// the order they were registered (those given a queue are sent to their queue).
  ///
  /// ```swift
  /// let promise = Promise<Int>()
  /// promise.fulfill(1)                  // true
  /// promise.fulfill(2)                  // false: the promise keeps 1
  /// ```
  ///
  /// - Parameter value: The value.
  /// - Returns: `true` when this call resolved the promise, `false` when it was already
  ///   resolved (nothing changes then).
  @discardableResult
  public func fulfill(_ value: Value) -> Bool {
    resolve(with: .success(value))
  }

  /// Rejects the promise with `error`, unless it is already resolved.
  ///
  /// The callbacks waiting for the promise run before this method returns, as with
  /// ``fulfill(_:)``.
  ///
  /// ```swift
  /// let promise = Promise<Int>()
  /// promise.reject(CancellationError())  // true
  /// promise.fulfill(1)                   // false: the promise stays rejected
  /// ```
  ///
  /// - Parameter error: The error.
  /// - Returns: `true` when this call resolved the promise, `false` when it was already
  ///   resolved.
  @discardableResult
  public func reject(_ error: any Error) -> Bool {
    resolve(with: .failure(error))
  }

  /// Resolves the promise with `result`, unless it is already resolved.
  ///
  /// This is ``fulfill(_:)`` or ``reject(_:)`` for a `Result` in hand, such as one a
  /// completion handler delivers.
  ///
  /// ```swift
  /// let promise = Promise<Int>()
  /// promise.resolve(with: .success(3))  // true
  /// ```
  ///
  /// - Parameter result: The value or the error.
  /// - Returns: `true` when this call resolved the promise, `false` when it was already
  ///   resolved.
  @discardableResult
  public func resolve(with result: Result<Value, any Error>) -> Bool {
    let callbacks = storage.withLock { state -> [Callback]? in
      switch result {
      case .success(let value):
        let callbacks = state.resolve(.fulfilled)
        if callbacks != nil { storage.slot.initialize(to: value) }
        return callbacks
      case .failure(let error):
        return state.resolve(.rejected(error))
      }
    }
    guard let callbacks else { return false }
    if !callbacks.isEmpty {
      withUnsafePointer(to: result) { result in
        for callback in callbacks {
          callback(result)
        }
      }
    }
    return true
  }

  /// The resolution: `nil` while the promise is pending.
  ///
  /// ```swift
  /// let promise = Promise<Int>()
  /// promise.result                      // nil
  /// promise.fulfill(7)
  /// promise.result                      // success(7)
  /// ```
  public var result: Result<Value, any Error>? {
    storage.withLock { storage.result(in: $0) }
  }

  /// Whether the promise is fulfilled or rejected.
  ///
  /// ```swift
  /// Promise<Int>().isResolved           // false
  /// Promise(value: 1).isResolved        // true
  /// ```
  public var isResolved: Bool {
    storage.withLock { $0.isResolved }
  }

  /// Runs `callback` once with the resolution: when the promise resolves, or at once when it is
  /// already resolved.
  ///
  /// The callback runs synchronously on the thread that resolves the promise, after the
  /// callbacks registered before it; when the promise is already resolved it runs at once, on
  /// this thread, before this method returns. It never runs twice, and never on the main queue
  /// unless the promise is resolved there. Use ``whenResolved(on:_:)`` to pick a queue.
  ///
  /// ```swift
  /// let promise = Promise<Int>()
  /// promise.whenResolved { print("first", $0) }
  /// promise.whenResolved { print("second", $0) }
  /// promise.fulfill(1)                  // prints "first success(1)", then "second success(1)"
  /// promise.whenResolved { print("late", $0) }   // prints "late success(1)" at once
  /// ```
  ///
  /// - Parameter callback: The function to call with the value or the error.
  public func whenResolved(_ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {
    let stored = Self.callback(callback)
    let result = storage.withLock { state -> Result<Value, any Error>? in
      if state.register(stored) { return nil }
      return storage.result(in: state)
    }
    if let result { callback(result) }
  }

  /// Wraps `body` as a stored callback.
  static func callback(
    _ body: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) -> Callback {
    { result in body(result.assumingMemoryBound(to: Result<Value, any Error>.self).pointee) }
  }

  /// Runs `callback` once with the resolution, asynchronously on `queue`.
  ///
  /// The callback is sent to `queue` when the promise resolves, or at once when it is already
  /// resolved; it never runs on the calling thread before this method returns. Callbacks sent
  /// to one serial queue run in registration order.
  ///
  /// ```swift
  /// promise.whenResolved(on: .main) { result in label.text = "\(result)" }
  /// ```
  ///
  /// - Parameters:
  ///   - queue: The queue to run the callback on.
  ///   - callback: The function to call with the value or the error.
  public func whenResolved(
    on queue: DispatchQueue, _ callback: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    whenResolved { result in
      queue.async { callback(result) }
    }
  }
}

extension Promise where Value == Void {
  /// Fulfils a `Promise<Void>`, unless it is already resolved.
  ///
  /// ```swift
  /// let done = Promise<Void>()
  /// done.fulfill()                      // true
  /// ```
  ///
  /// - Returns: `true` when this call resolved the promise, `false` when it was already
  ///   resolved.
  @discardableResult
  public func fulfill() -> Bool {
    fulfill(())
  }
}
