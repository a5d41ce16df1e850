/// What a promise knows, as a pure state machine: pending with callbacks waiting in
/// registration order, or fulfilled or rejected for good.
///
/// It neither locks nor runs callbacks, and it does not hold the fulfilled value: ``Promise``
/// keeps the value beside it, behind the same lock, and runs the callbacks each transition
/// hands back, after unlocking. (Keeping `Value` out of this type keeps its layout fixed, so
/// the promise's unspecialized generic code reaches it without run-time metadata lookups.)
/// `Callback` is generic so that tests can drive every transition with plain values.
struct PromiseState<Callback> {
  /// Pending, fulfilled (the value is the promise's), or rejected with an error.
  enum Phase {
    case pending
    case fulfilled
    case rejected(any Error)

    /// Whether this is `.pending`.
    var isPending: Bool {
      if case .pending = self { return true }
      return false
    }
  }

  /// Where the promise stands.
  private(set) var phase: Phase
  /// Callbacks registered while pending, oldest first, each with the identifier it was given.
  private var waiting: [(id: UInt64, callback: Callback)] = []
  /// The identifier the next registration gets.
  private var nextID: UInt64 = 0

  /// A state in `phase`: pending by default.
  init(_ phase: Phase = .pending) {
    self.phase = phase
  }

  /// Whether the state is fulfilled or rejected.
  var isResolved: Bool { !phase.isPending }

  /// Whether the state is fulfilled.
  var isFulfilled: Bool {
    if case .fulfilled = phase { return true }
    return false
  }

  /// The number of callbacks waiting for the resolution.
  var waitingCount: Int { waiting.count }

  /// Resolves the state unless it is resolved already.
  ///
  /// - Parameter resolution: `.fulfilled` or `.rejected`; `.pending` changes nothing.
  /// - Returns: The callbacks to run, oldest first, or `nil` when the state was already
  ///   resolved (the first resolution wins, and this one changes nothing).
  mutating func resolve(_ resolution: Phase) -> [Callback]? {
    guard !isResolved, !resolution.isPending else { return nil }
    phase = resolution
    defer { waiting = [] }
    return waiting.map(\.callback)
  }

  /// Returns a fresh identifier for ``register(_:id:)``, so a caller can know it before
  /// registering (to take the callback back from another thread).
  mutating func makeID() -> UInt64 {
    defer { nextID += 1 }
    return nextID
  }

  /// Registers `callback` unless the state is already resolved.
  ///
  /// - Parameters:
  ///   - callback: The callback to keep until the resolution.
  ///   - id: The identifier to register it under; a fresh one by default.
  /// - Returns: `true` when the callback waits; `false`, storing nothing, when the state is
  ///   already resolved and the caller should run it at once.
  mutating func register(_ callback: Callback, id: UInt64? = nil) -> Bool {
    if isResolved { return false }
    waiting.append((id ?? makeID(), callback))
    return true
  }

  /// Takes back a waiting callback, so it will never run.
  ///
  /// - Returns: The callback, or `nil` when it is no longer waiting (it was handed out by
  ///   ``resolve(_:)`` or removed already).
  mutating func unregister(_ id: UInt64) -> Callback? {
    guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
    return waiting.remove(at: index).callback
  }
}

extension PromiseState: Sendable where Callback: Sendable {}
