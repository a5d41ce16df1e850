import Dispatch
import TinyInternals

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
/// retain cycle. No lock is held while a callback runs or while a callback or value of yours
/// is released, so code that runs there (a `deinit` included) may use the same promise in
/// every way. Chains of any length (``map(_:)``, ``then(_:)``, ``recover(_:)``, ``all(_:)``,
/// ``race(_:)``) resolve, and are freed when dropped unresolved, one step after another: a
/// chain of a million steps needs no more stack than one. So are promises that hold each other
/// through their values or errors.
public final class Promise<Value: Sendable>: Sendable {
  /// A stored callback: it receives the resolution.
  typealias Callback = PromiseCallback

  /// Where the promise stands (pending with its callbacks, or resolved), behind the promise's
  /// lock.
  let state: Locked<PromiseState<PromiseCallback>>

  /// Creates a pending promise.
  ///
  /// ```swift
  /// let feed = Promise<[String]>()
  /// feed.isResolved                     // false
  /// ```
  public init() {
    state = Locked(PromiseState())
  }

  /// Creates a promise already resolved with `resolution`, a value of `Value` or an error.
  init(resolved resolution: Resolution) {
    state = Locked(PromiseState(resolvedWith: resolution, stamp: nextResolutionStamp()))
  }

  /// Creates a promise already resolved with `result`.
  ///
  /// ```swift
  /// Promise<Int>(result: .success(1)).result   // success(1)
  /// ```
  ///
  /// - Parameter result: The value or the error.
  public convenience init(result: Result<Value, any Error>) {
    self.init(resolved: Resolution(result))
  }

  /// Creates a promise already fulfilled with `value`.
  ///
  /// ```swift
  /// Promise(value: 42).result           // success(42)
  /// ```
  ///
  /// - Parameter value: The value.
  public convenience init(value: Value) {
    self.init(resolved: .fulfilled(value))
  }

  /// Creates a promise already rejected with `error`.
  ///
  /// ```swift
  /// Promise<Int>(error: CancellationError()).isResolved   // true
  /// ```
  ///
  /// - Parameter error: The error.
  public convenience init(error: any Error) {
    self.init(resolved: .rejected(error))
  }

  deinit {
    // A pending promise's callbacks may hold the next promise of a chain, which holds the next,
    // and so may a resolved promise's value or error: released through the trampoline, a chain
    // is freed one link after another instead of one `deinit` inside the next, and with no
    // lock held.
    let (resolution, waiting) = state.withLock { $0.takeAll() }
    if resolution != nil { Trampoline.release(consume resolution) }
    if !waiting.isEmpty { Trampoline.release(consume waiting) }
  }

  /// Fulfils the promise with `value`, unless it is already resolved.
  ///
  /// The callbacks registered with ``whenResolved(_:)`` run before this method returns, on this
  /// thread, in the order they were registered; those registered with
  /// ``whenResolved(on:_:)`` are sent to their queues in that order. Promises made from this
  /// one (with ``map(_:)``, ``then(_:)``, ``recover(_:)``, ``all(_:)`` and ``race(_:)``)
  /// resolve on this thread too, one after another rather than one inside another, so a chain
  /// of any length needs no more stack than one step:
  ///
  /// - Called outside any promise callback, this method returns after the whole chain that
  ///   this resolution sets off has resolved and run its callbacks.
  /// - Called from inside a callback or a transform (while this thread is delivering another
  ///   resolution), it still runs this promise's own callbacks before it returns, but the
  ///   promises made from this one resolve later on this thread, after that callback has
  ///   returned and before the outermost resolution on this thread returns. (Promises made
  ///   from promises that are resolved already are resolved when they are made.)
  /// - Called from a `deinit` that a promise dropped while pending sets off as it releases its
  ///   callbacks, it behaves as inside a callback: the promises made from this one resolve
  ///   after that `deinit` returns, before the release of the dropped promise does. So do not
  ///   wait there for them to resolve.
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
    resolve(.fulfilled(value))
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
    resolve(.rejected(error))
  }

  /// Resolves the promise with `result`, unless it is already resolved.
  ///
  /// This is ``fulfill(_:)`` or ``reject(_:)`` for a `Result` in hand, such as one a
  /// completion handler delivers; the callbacks run as ``fulfill(_:)`` describes.
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
    resolve(Resolution(result))
  }

  /// Resolves the promise with `resolution`, a value of `Value` or an error, unless it is
  /// already resolved; see ``fulfill(_:)``.
  @discardableResult
  func resolve(_ resolution: Resolution) -> Bool {
    guard
      let delivery = state.withLock({ $0.resolve(with: resolution, stamp: nextResolutionStamp) })
    else { return false }
    if delivery.callbacks.isEmpty { return true }
    // The outermost resolution on this thread runs the chained resolutions that its callbacks
    // queue, one after another, before it returns.
    let outermost = Trampoline.enter()
    for (index, entry) in delivery.callbacks.enumerated() {
      entry.callback(resolution)
      if index == delivery.lastQueued { deliverDeferred(resolution) }
    }
    if let outermost { Trampoline.leave(outermost) }
    return true
  }

  /// Resolves the promise on behalf of a combinator (a chained step, `all`, `race`): at once
  /// when this thread is not delivering a resolution, else right after the callback being
  /// delivered returns, so that a chain resolves as a loop, not as nested calls.
  func settle(_ resolution: Resolution) {
    Trampoline.run { self.resolve(resolution) }
  }

  /// Sends the queued callbacks waiting in line, oldest first, until none is left; then this
  /// thread stops delivering.
  private func deliverDeferred(_ resolution: Resolution) {
    while case let deferred = state.withLock({ $0.takeDeferred() }), !deferred.isEmpty {
      for entry in deferred { entry.callback(resolution) }
    }
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
    resolution?.result(of: Value.self)
  }

  /// The resolution, a value of `Value` or an error; `nil` while the promise is pending.
  var resolution: Resolution? {
    state.withLock { $0.resolution }
  }

  /// Whether the promise is fulfilled or rejected.
  ///
  /// ```swift
  /// Promise<Int>().isResolved           // false
  /// Promise(value: 1).isResolved        // true
  /// ```
  public var isResolved: Bool {
    state.withLock { $0.isResolved }
  }

  /// Runs `callback` once with the resolution: when the promise resolves, or at once when it is
  /// already resolved.
  ///
  /// The callback runs synchronously on the thread that resolves the promise, after the
  /// callbacks registered before it, before ``fulfill(_:)`` returns; when the promise is
  /// already resolved it runs at once, on this thread, before this method returns (so a
  /// callback registered on another thread while the resolving thread is still running earlier
  /// callbacks may run before those finish). It never runs twice, and never on the main queue
  /// unless the promise is resolved there. Use ``whenResolved(on:_:)`` to pick a queue.
  ///
  /// The promise keeps `callback` until it resolves, then releases it on the resolving thread
  /// after the callbacks have run, with no lock held: a `deinit` it sets off may use this
  /// promise (read it, resolve it, register more callbacks). A promise dropped while pending
  /// releases its callbacks one after another, so a long chain of pending promises is freed
  /// without deep recursion.
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
    // The stored form is made only when the promise is pending (Promise map×3 + whenResolved).
    let resolution = state.withLock { state -> Resolution? in
      if state.isResolved { return state.resolution }
      _ = state.register(.function { callback($0.result(of: Value.self)) })
      return nil
    }
    if let resolution { callback(resolution.result(of: Value.self)) }
  }

  /// ``whenResolved(_:)`` for a callback that takes the resolution as it is kept, so that a
  /// chained step makes no `Result`.
  func onResolution(_ callback: @escaping @Sendable (Resolution) -> Void) {
    let resolution = state.withLock {
      $0.register(.function(callback)) == .waiting ? nil : $0.resolution
    }
    if let resolution { callback(resolution) }
  }

  /// Runs `callback` once with the resolution, asynchronously on `queue`.
  ///
  /// The callback is sent to `queue` when the promise resolves, or at once when it is already
  /// resolved; it never runs on the calling thread before this method returns. Callbacks sent
  /// to one serial queue run in the order they were registered, whatever the threads involved:
  /// also when one is registered while the resolving thread is still running earlier callbacks
  /// (it is then sent after every earlier one, once they are sent).
  ///
  /// ```swift
  /// promise.whenResolved(on: .main) { result in label.text = "\(result)" }
  /// ```
  ///
  /// A callback sent to `.main` runs whenever the main thread is free to drain the main queue:
  /// an app's run loop; Swift Testing (its tests run off the main thread, and the main queue
  /// keeps draining, also for `@MainActor` tests); an `async` XCTest test; a synchronous XCTest
  /// test only while it waits (`wait(for:timeout:)`, ``Waiter/wait(timeout:eachQuantum:)``),
  /// since its body occupies the main thread; a command-line tool only when its top-level code
  /// is `async` or it runs `RunLoop.main.run()` / `dispatchMain()`.
  ///
  /// - Parameters:
  ///   - queue: The queue to run the callback on.
  ///   - callback: The function to call with the value or the error.
  public func whenResolved(
    on queue: DispatchQueue, _ callback: @escaping @Sendable (Result<Value, any Error>) -> Void
  ) {
    let send = Callback.function { resolution in
      queue.async { callback(resolution.result(of: Value.self)) }
    }
    let resolution = state.withLock {
      $0.register(send, queued: true) == .deliverNow ? $0.resolution : nil
    }
    // This thread now delivers: its callback is first in line.
    if let resolution { deliverDeferred(resolution) }
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
