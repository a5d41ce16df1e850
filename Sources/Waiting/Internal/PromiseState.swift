import TinyInternals

/// What a promise knows, as a pure state machine: pending with callbacks waiting in
/// registration order, or resolved for good with its resolution and the stamp that orders it
/// among all others.
///
/// It neither locks nor runs callbacks: ``Promise`` holds it behind a lock and runs the
/// callbacks each transition hands back, after unlocking. Its type does not depend on the
/// promise's `Value` (the value is kept as `any Sendable`): a promise's `deinit`, which is never
/// specialized for a `Value`, then frees it without looking up types at run time, which keeps
/// `map`×3 and `then`×3 within their goal of 1.5× a hand-written promise. `Callback` is
/// generic so that tests can drive every transition with plain values.
///
/// Callbacks that send the resolution to a queue ("queued" callbacks) must reach their queues in
/// registration order, also when they are registered while the resolving thread is still
/// running earlier callbacks. So one thread at a time delivers queued callbacks: the resolver
/// while it has some left, or the first thread that registers one on the resolved promise. A
/// queued callback registered meanwhile waits in line, and the deliverer takes it with
/// ``takeDeferred()`` before it stops delivering.
struct PromiseState<Callback> {
  /// A callback and the identifier it was registered under.
  typealias Entry = (id: UInt64, callback: Callback)

  /// What a registration leads to.
  enum Registration: Equatable, Sendable {
    /// The promise is pending: the callback waits for the resolution.
    case waiting
    /// The promise is resolved: run the callback now, on this thread.
    case runNow
    /// The promise is resolved and this thread now delivers queued callbacks: the callback
    /// waits in line, first, and this thread calls ``takeDeferred()`` until it returns nothing.
    case deliverNow
    /// The promise is resolved and another thread is delivering queued callbacks: it will send
    /// this one after those registered before it.
    case deferred
  }

  /// The callbacks a resolution hands out, oldest first, and the position of the last queued
  /// one (`nil` for none): once that one is sent, call ``takeDeferred()`` until it returns
  /// nothing.
  typealias Delivery = (callbacks: [Entry], lastQueued: Int?)

  /// The resolution; `nil` while pending.
  private(set) var resolution: Resolution?
  /// When the promise was resolved, as a number from a process-wide counter taken while the
  /// lock is held: a resolution that happened before another has the smaller stamp. 0 while
  /// pending.
  private(set) var stamp: UInt64 = 0
  /// Callbacks registered while pending, oldest first; once resolved, the queued callbacks
  /// that wait for the delivering thread.
  private(set) var waiting: [Entry] = []
  /// The position of the last queued callback in `waiting` while pending.
  private var lastQueued: Int?
  /// Whether a thread is delivering queued callbacks of the resolved promise.
  private(set) var isDelivering = false
  /// The identifier the next registration gets.
  private var nextID: UInt64 = 0
  /// The task running the operation of `Promise.init(operation:)` that resolves the promise
  /// (a number that tells it from every other live task), once that operation has started.
  var resolvingTask: Int?

  /// A pending state.
  init() {}

  /// A state resolved with `resolution`, which took `stamp`.
  init(resolvedWith resolution: Resolution, stamp: UInt64) {
    self.resolution = resolution
    self.stamp = stamp
  }

  /// Whether the state is fulfilled or rejected.
  var isResolved: Bool { resolution != nil }

  /// Resolves the state with `resolution` unless it is resolved already.
  ///
  /// - Parameters:
  ///   - resolution: The value or the error.
  ///   - stamp: Takes the resolution's stamp; called only when the state changes.
  /// - Returns: The callbacks to run, or `nil` when the state was already resolved (the first
  ///   resolution wins, and this one changes nothing).
  mutating func resolve(with resolution: Resolution, stamp: () -> UInt64) -> Delivery? {
    guard !isResolved else { return nil }
    self.resolution = resolution
    self.stamp = stamp()
    defer {
      waiting = []
      lastQueued = nil
    }
    isDelivering = lastQueued != nil
    return (waiting, lastQueued)
  }

  /// Returns a fresh identifier for ``register(_:id:queued:)``, so a caller can know it before
  /// registering (to take the callback back from another thread).
  mutating func makeID() -> UInt64 {
    defer { nextID += 1 }
    return nextID
  }

  /// Registers `callback`, or says how to run it when the state is already resolved.
  ///
  /// - Parameters:
  ///   - callback: The callback.
  ///   - id: The identifier to register it under; a fresh one by default.
  ///   - queued: Whether the callback sends the resolution to a queue, and so must reach it
  ///     after every queued callback registered before it.
  /// - Returns: Whether the callback waits, must run now, must be sent now by this thread (which
  ///   then delivers), or waits in line for the thread that delivers.
  mutating func register(
    _ callback: Callback, id: UInt64? = nil, queued: Bool = false
  ) -> Registration {
    if !isResolved {
      waiting.append((id ?? makeID(), callback))
      if queued { lastQueued = waiting.count - 1 }
      return .waiting
    }
    guard queued else { return .runNow }
    waiting.append((id ?? makeID(), callback))
    if isDelivering { return .deferred }
    isDelivering = true
    return .deliverNow
  }

  /// Hands the delivering thread the queued callbacks waiting in line, oldest first; when there
  /// are none, it stops delivering.
  mutating func takeDeferred() -> [Entry] {
    if waiting.isEmpty { isDelivering = false }
    defer { waiting = [] }
    return waiting
  }

  /// Takes back a waiting callback, so it will never run.
  ///
  /// - Returns: The callback, or `nil` when it is no longer waiting (it was handed out by
  ///   ``resolve(with:stamp:)`` or removed already).
  mutating func unregister(_ id: UInt64) -> Callback? {
    guard !isResolved, let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
    // Removing a callback before the last queued one moves that one down; removing the last
    // queued one leaves its predecessor as the point after which the resolver hands over:
    // never too early, since no queued callback comes later.
    if let last = lastQueued, index <= last { lastQueued = last > 0 ? last - 1 : nil }
    return waiting.remove(at: index).callback
  }

  /// Takes out everything the state holds of the user's (a promise is going away), so it can be
  /// released after unlocking.
  mutating func takeAll() -> (resolution: Resolution?, waiting: [Entry]) {
    defer {
      resolution = nil
      waiting = []
      lastQueued = nil
    }
    return (resolution, waiting)
  }
}

extension PromiseState: Sendable where Callback: Sendable {}

/// A promise's value or error, with the value's type erased.
enum Resolution: Sendable {
  /// The value, in a box: a resolution is then copied as one reference, where a bare
  /// `any Sendable` is copied through its type's witnesses (await value, pending, fulfilled from
  /// DispatchQueue.global()).
  case value(FulfilledValue)
  case rejected(any Error)

  /// A resolution fulfilled with `value`.
  static func fulfilled(_ value: any Sendable) -> Resolution {
    .value(FulfilledValue(value))
  }

  /// The resolution `result` stands for.
  init<Value: Sendable>(_ result: Result<Value, any Error>) {
    switch result {
    case .success(let value): self = .fulfilled(value)
    case .failure(let error): self = .rejected(error)
    }
  }

  /// The resolution as a `Result` of the promise's `Value` (a promise only ever holds values of
  /// its `Value`).
  // Inlined, so that its caller looks the `Result` type up once (Promise map×3 + whenResolved).
  @inline(__always)
  func result<Value>(of _: Value.Type) -> Result<Value, any Error> {
    switch self {
    case .value(let box): .success(box.value as! Value)
    case .rejected(let error): .failure(error)
    }
  }

  /// The value, of the promise's `Value`, or the error thrown.
  func get<Value>(_: Value.Type) throws -> Value {
    switch self {
    case .value(let box): box.value as! Value
    case .rejected(let error): throw error
    }
  }

  /// The resolution with `transform` applied to the value, or the error it throws.
  func map<Value, NewValue: Sendable>(
    _: Value.Type, _ transform: (Value) throws -> NewValue
  ) -> Resolution {
    guard case .value(let box) = self else { return self }
    do {
      return .fulfilled(try transform(box.value as! Value))
    } catch {
      return .rejected(error)
    }
  }

  /// The resolution with `recovery` applied to the error, or the error it throws.
  func recover<Value: Sendable>(_ recovery: (any Error) throws -> Value) -> Resolution {
    guard case .rejected(let error) = self else { return self }
    do {
      return .fulfilled(try recovery(error))
    } catch {
      return .rejected(error)
    }
  }
}

/// A fulfilled promise's value, with its type erased; it never changes.
final class FulfilledValue: Sendable {
  let value: any Sendable

  init(_ value: any Sendable) {
    self.value = value
  }
}

/// What a promise keeps, until it resolves, for each party waiting for it.
enum PromiseCallback: Sendable {
  /// A function to call with the resolution.
  case function(@Sendable (Resolution) -> Void)
  /// A task suspended in `value`, to resume with the resolution: kept bare, so that awaiting a
  /// pending promise allocates no closure (the pending `await value` goal is 2× a checked
  /// continuation).
  case task(UnsafeContinuation<Resolution, Never>)

  /// Calls the function, or resumes the task, with `resolution`.
  func callAsFunction(_ resolution: Resolution) {
    switch self {
    case .function(let function): function(resolution)
    case .task(let task): task.resume(returning: resolution)
    }
  }
}

/// The last resolution stamp handed out.
private let lastResolutionStamp = Locked<UInt64>(0)

/// A number larger than every one handed out before it: a promise takes one, with its lock
/// held, when it resolves, so the stamps order the resolutions, and a resolution that happened
/// before another has the smaller stamp.
func nextResolutionStamp() -> UInt64 {
  lastResolutionStamp.withLock { stamp in
    stamp += 1
    return stamp
  }
}
