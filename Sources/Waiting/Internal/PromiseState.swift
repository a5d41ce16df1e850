/// What a promise knows, as a pure state machine: pending with callbacks waiting in
/// registration order, or resolved for good.
///
/// It neither locks nor runs callbacks; ``Promise`` holds it behind a lock and runs the
/// callbacks each transition hands back, after unlocking. `Callback` is generic so that tests
/// can drive every transition with plain values.
struct PromiseState<Value, Callback> {
  /// The resolution, or `nil` while pending. Set once.
  private(set) var result: Result<Value, any Error>?
  /// Callbacks registered while pending, oldest first, each with the identifier it was given.
  private var waiting: [(id: UInt64, callback: Callback)] = []
  /// The identifier the next registration gets.
  private var nextID: UInt64 = 0

  /// A pending state.
  init() {}

  /// A state resolved from the start.
  init(resolved result: Result<Value, any Error>) {
    self.result = result
  }

  /// The number of callbacks waiting for the resolution.
  var waitingCount: Int { waiting.count }

  /// Resolves the state unless it is resolved already.
  ///
  /// - Returns: The callbacks to run with `result`, oldest first, or `nil` when the state was
  ///   already resolved (the first resolution wins, and this one changes nothing).
  mutating func resolve(_ result: Result<Value, any Error>) -> [Callback]? {
    guard self.result == nil else { return nil }
    self.result = result
    defer { waiting = [] }
    return waiting.map(\.callback)
  }

  /// What to do with a callback that is being registered.
  enum Registration {
    /// The state is pending: the callback waits under this identifier.
    case waiting(id: UInt64)
    /// The state is resolved: run the callback now with this result.
    case runNow(Result<Value, any Error>)
  }

  /// Returns a fresh identifier for ``register(_:id:)``, so a caller can know it before
  /// registering (to take the callback back from another thread).
  mutating func makeID() -> UInt64 {
    defer { nextID += 1 }
    return nextID
  }

  /// Registers `callback`, or says to run it at once when the state is already resolved.
  ///
  /// - Parameters:
  ///   - callback: The callback to keep until the resolution.
  ///   - id: The identifier to register it under; a fresh one by default.
  /// - Returns: Where the callback went.
  mutating func register(_ callback: Callback, id: UInt64? = nil) -> Registration {
    if let result { return .runNow(result) }
    let id = id ?? makeID()
    waiting.append((id, callback))
    return .waiting(id: id)
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

extension PromiseState: Sendable where Value: Sendable, Callback: Sendable {}
extension PromiseState.Registration: Sendable where Value: Sendable {}
