/// What a promise knows, as a pure state machine: pending with callbacks waiting in
/// registration order, or fulfilled or rejected for good, with the stamp that orders its
/// resolution among all others.
///
/// It neither locks nor runs callbacks, and it does not hold the fulfilled value: ``Promise``
/// keeps the value beside it, behind the same lock, and runs the callbacks each transition
/// hands back, after unlocking. (Keeping `Value` out of this type keeps its layout fixed, so
/// the promise's unspecialized generic code reaches it without run-time metadata lookups.)
/// `Callback` is generic so that tests can drive every transition with plain values.
///
/// Callbacks that send the resolution to a queue ("queued" callbacks) must reach their queues in
/// registration order, also when they are registered while the resolving thread is still
/// running earlier callbacks. So one thread at a time delivers queued callbacks: the resolver
/// while it has some left, or the first thread that registers one on the resolved promise. A
/// queued callback registered meanwhile waits in line, and the deliverer takes it with
/// ``takeDeferred()`` before it stops delivering.
struct PromiseState<Callback> {
  /// Pending, fulfilled (the value is the promise's), or rejected with an error.
  enum Phase: Sendable {
    case pending
    case fulfilled
    case rejected(any Error)

    /// Whether this is `.pending`.
    var isPending: Bool {
      if case .pending = self { return true }
      return false
    }

    /// Whether this is `.rejected`.
    var isRejected: Bool {
      if case .rejected = self { return true }
      return false
    }
  }

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

  /// The callbacks a resolution hands out, oldest first.
  struct Delivery {
    /// The callbacks, oldest first.
    var callbacks: CallbackList<Callback>
    /// The position of the last queued callback in `callbacks`, or `nil` when there is none:
    /// once it is sent, call ``takeDeferred()`` until it returns nothing.
    var lastQueued: Int?

    init(callbacks: CallbackList<Callback>, lastQueued: Int?) {
      self.callbacks = callbacks
      self.lastQueued = lastQueued
    }
  }

  /// Where the promise stands.
  var phase: Phase
  /// When the promise was resolved, as a number from a process-wide counter taken while the
  /// lock is held: a resolution that happened before another has the smaller stamp. 0 while
  /// pending.
  var stamp: UInt64
  /// Callbacks registered while pending, oldest first, each with the identifier it was given;
  /// once resolved, queued callbacks registered while another thread delivers.
  var waiting = CallbackList<Callback>()
  /// The position of the last queued callback in `waiting` while pending; -1 for none (a
  /// plain integer keeps the state cheap to copy).
  var lastQueued = -1
  /// Whether a thread is delivering queued callbacks of the resolved promise.
  var isDelivering = false
  /// The identifier the next registration gets.
  var nextID: UInt64 = 0
  /// The task running the operation of `Promise.init(operation:)` that resolves the promise
  /// (a number that tells it from every other live task), once that operation has started.
  var resolvingTask: Int?

  /// A state in `phase`: pending by default. A resolved state needs its resolution's stamp.
  init(_ phase: Phase = .pending, stamp: UInt64 = 0) {
    self.phase = phase
    self.stamp = stamp
  }

  /// Whether the state is fulfilled or rejected.
  var isResolved: Bool { !phase.isPending }

  /// Whether the state is fulfilled.
  var isFulfilled: Bool {
    if case .fulfilled = phase { return true }
    return false
  }

  /// The number of callbacks waiting for the resolution (or, once resolved, in line to be
  /// delivered).
  var waitingCount: Int { waiting.count }

  /// Resolves the state unless it is resolved already.
  ///
  /// - Parameters:
  ///   - resolution: `.fulfilled` or `.rejected`; `.pending` changes nothing.
  ///   - stamp: Takes the resolution's stamp; called only when the state changes.
  /// - Returns: The callbacks to run, oldest first, or `nil` when the state was already
  ///   resolved (the first resolution wins, and this one changes nothing).
  mutating func resolve(_ resolution: Phase, stamp: () -> UInt64) -> Delivery? {
    guard !isResolved, !resolution.isPending else { return nil }
    phase = resolution
    self.stamp = stamp()
    let delivery = Delivery(callbacks: waiting, lastQueued: lastQueued < 0 ? nil : lastQueued)
    waiting = CallbackList()
    isDelivering = lastQueued >= 0
    lastQueued = -1
    return delivery
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
  ///   - callback: The callback to keep until the resolution.
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
  mutating func takeDeferred() -> CallbackList<Callback> {
    if waiting.isEmpty { isDelivering = false }
    defer { waiting = CallbackList() }
    return waiting
  }

  /// Takes back a waiting callback, so it will never run.
  ///
  /// - Returns: The callback, or `nil` when it is no longer waiting (it was handed out by
  ///   ``resolve(_:stamp:)`` or removed already).
  mutating func unregister(_ id: UInt64) -> Callback? {
    guard !isResolved, let (index, callback) = waiting.remove(id: id) else { return nil }
    // Removing the last queued callback leaves its predecessor as the point after which
    // the resolver hands over: never too early, since no queued callback comes later.
    if index <= lastQueued { lastQueued -= 1 }
    return callback
  }

  /// Takes out every waiting callback (a pending promise is going away), so they can be
  /// released after unlocking.
  mutating func takeAllWaiting() -> CallbackList<Callback> {
    lastQueued = -1
    defer { waiting = CallbackList() }
    return waiting
  }
}

extension PromiseState: Sendable where Callback: Sendable {}
extension PromiseState.Delivery: Sendable where Callback: Sendable {}
