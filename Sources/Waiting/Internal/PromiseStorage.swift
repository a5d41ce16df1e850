/// A promise's lock, state and value, side by side in one allocation.
///
/// A promise's methods are generic and, called from another module, run unspecialized. There,
/// every use of a type whose layout depends on `Value` (an `Optional<Value>` field, a
/// `Result<Value, any Error>`, a struct generic over `Value`) looks its metadata up in the
/// runtime's cache, and profiles showed those lookups dominating. Here the state does not
/// depend on `Value` and sits at a fixed offset, and the value is reached through a typed
/// pointer, so the fast paths need no lookups (and no exclusivity checks on class fields).
struct PromiseStorage<Value>: ~Copyable {
  /// The state's type: concrete, so its metadata and code are static.
  typealias State = PromiseState<PromiseCallback>

  private let base: UnsafeMutableRawPointer

  /// Storage for a promise that is pending or rejected.
  init(_ phase: State.Phase) {
    base = .allocate(
      byteCount: Self.valueOffset + MemoryLayout<Value>.size, alignment: Self.alignment)
    PlatformLock.initialize(at: lockAddress)
    state.initialize(to: State(phase))
  }

  /// Storage for a promise fulfilled with `value`.
  init(fulfilledWith value: consuming Value) {
    self.init(.fulfilled)
    slot.initialize(to: value)
  }

  deinit {
    if case .fulfilled = state.pointee.phase { slot.deinitialize(count: 1) }
    state.deinitialize(count: 1)
    PlatformLock.deinitialize(at: lockAddress)
    base.deallocate()
  }

  /// Takes the lock.
  func lock() {
    PlatformLock.lock(lockAddress)
  }

  /// Releases the lock.
  func unlock() {
    PlatformLock.unlock(lockAddress)
  }

  /// Runs `body` with the lock held and returns what it returns.
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    lock()
    defer { unlock() }
    return try body()
  }

  /// Changes the state; call it only with the lock held.
  ///
  /// Going through this borrowing method, rather than through `state.pointee` on the
  /// promise's stored property, keeps every access to that property a read (the thread
  /// sanitizer reported a mutation reached through a non-copyable stored property as a
  /// modifying access of the property itself).
  func updateState<Result>(_ body: (inout State) -> Result) -> Result {
    body(&state.pointee)
  }

  /// The state; read it, and write it through ``updateState(_:)``, only with the lock held.
  var state: UnsafeMutablePointer<State> {
    (base + Self.stateOffset).assumingMemoryBound(to: State.self)
  }

  /// The value: initialized exactly when the state is fulfilled. Use it with the lock held, or
  /// after seeing the state fulfilled with the lock held: it never changes after that.
  var slot: UnsafeMutablePointer<Value> {
    (base + Self.valueOffset).assumingMemoryBound(to: Value.self)
  }

  private var lockAddress: UnsafeMutablePointer<PlatformLock.Primitive> {
    base.assumingMemoryBound(to: PlatformLock.Primitive.self)
  }

  private static var stateOffset: Int {
    aligned(MemoryLayout<PlatformLock.Primitive>.size, to: MemoryLayout<State>.alignment)
  }

  private static var valueOffset: Int {
    aligned(stateOffset + MemoryLayout<State>.size, to: MemoryLayout<Value>.alignment)
  }

  private static var alignment: Int {
    Swift.max(
      MemoryLayout<PlatformLock.Primitive>.alignment, MemoryLayout<State>.alignment,
      MemoryLayout<Value>.alignment)
  }

  private static func aligned(_ offset: Int, to alignment: Int) -> Int {
    (offset + alignment - 1) / alignment * alignment
  }
}

/// A callback a promise keeps while pending: it receives a pointer to the
/// `Result<Value, any Error>` the promise is resolved with, so its type does not depend on
/// `Value`.
typealias PromiseCallback = @Sendable (UnsafeRawPointer) -> Void
