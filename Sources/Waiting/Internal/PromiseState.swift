import TinyInternals

/// What a promise knows, as a pure state machine: pending with callbacks waiting in
/// registration order, or resolved for good with its result and the stamp that orders its
/// resolution among all others.
///
/// It neither locks nor runs callbacks: ``Promise`` holds it behind a lock and runs the
/// callbacks each transition hands back, after unlocking. `Callback` is generic so that tests
/// can drive every transition with plain values.
///
/// Callbacks that send the resolution to a queue ("queued" callbacks) must reach their queues in
/// registration order, also when they are registered while the resolving thread is still
/// running earlier callbacks. So one thread at a time delivers queued callbacks: the resolver
/// while it has some left, or the first thread that registers one on the resolved promise. A
/// queued callback registered meanwhile waits in line, and the deliverer takes it with
/// ``takeDeferred()`` before it stops delivering.
struct PromiseState<Value, Callback> {
  /// A callback and the identifier it was registered under.
  typealias Entry = (id: UInt64, callback: Callback)

  /// What a registration leads to.
  enum Registration: Equatable, Sendable {
    /// The promise is pending: the callback waits for the resolution.
    case waiting
    /// The promise is resolved: run the callback now, on this thread.
    case runNow
    /// The promise is resolved and this thread now delivers queued callbacks: send this one to
    /// its queue, then call ``takeDeferred()`` until it returns nothing.
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
  private(set) var result: Result<Value, any Error>?
  /// When the promise was resolved, as a number from a process-wide counter taken while the
  /// lock is held: a resolution that happened before another has the smaller stamp. 0 while
  /// pending.
  private(set) var stamp: UInt64 = 0
  /// Callbacks registered while pending, oldest first; once resolved, queued callbacks
  /// registered while another thread delivers.
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

  /// A state resolved with `result`, which took `stamp`.
  init(resolvedWith result: Result<Value, any Error>, stamp: UInt64) {
    self.result = result
    self.stamp = stamp
  }

  /// Whether the state is fulfilled or rejected.
  var isResolved: Bool { result != nil }

  /// Resolves the state with `result` unless it is resolved already.
  ///
  /// - Parameters:
  ///   - result: The resolution.
  ///   - stamp: Takes the resolution's stamp; called only when the state changes.
  /// - Returns: The callbacks to run, or `nil` when the state was already resolved (the first
  ///   resolution wins, and this one changes nothing).
  mutating func resolve(
    with result: Result<Value, any Error>, stamp: () -> UInt64
  ) -> Delivery? {
    guard !isResolved else { return nil }
    self.result = result
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
    if isDelivering {
      waiting.append((id ?? makeID(), callback))
      return .deferred
    }
    isDelivering = true
    return .deliverNow
  }

  /// Hands the delivering thread the queued callbacks registered while it delivered, oldest
  /// first; when there are none, it stops delivering.
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
  mutating func takeAll() -> (result: Result<Value, any Error>?, waiting: [Entry]) {
    defer {
      result = nil
      waiting = []
      lastQueued = nil
    }
    return (result, waiting)
  }
}

extension PromiseState: Sendable where Value: Sendable, Callback: Sendable {}

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
