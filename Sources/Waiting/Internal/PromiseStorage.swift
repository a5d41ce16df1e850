/// A promise's lock and state, and the slot its value is kept in.
///
/// A promise's methods are generic and, called from another module, run unspecialized. There,
/// every use of a type whose layout depends on `Value` (an `Optional<Value>` field, a
/// `Result<Value, any Error>`, a struct generic over `Value`) looks its metadata up in the
/// runtime's cache. Here the locked state does not depend on `Value`, and the value is reached
/// through a typed pointer, so the fast paths need no lookups.
struct PromiseStorage<Value>: ~Copyable {
  /// The state's type: concrete, so its metadata and code are static.
  typealias State = PromiseState<PromiseCallback>

  /// The state, behind the promise's lock.
  let state: Locked<State>

  /// The value: initialized exactly when the state is fulfilled. It is written with the lock
  /// held, before the state says fulfilled, and never changes after that, so whoever has seen
  /// the state fulfilled (with the lock held) may read it without the lock.
  let slot: UnsafeMutablePointer<Value>

  /// Storage for a pending promise.
  init() {
    state = Locked(State())
    slot = .allocate(capacity: 1)
  }

  /// Storage for a promise rejected with `error`, resolved now.
  init(rejectedWith error: any Error) {
    state = Locked(State(.rejected(error), stamp: nextResolutionStamp()))
    slot = .allocate(capacity: 1)
  }

  /// Storage for a promise fulfilled with `value`, resolved now.
  init(fulfilledWith value: consuming Value) {
    slot = .allocate(capacity: 1)
    slot.initialize(to: value)
    state = Locked(State(.fulfilled, stamp: nextResolutionStamp()))
  }

  deinit {
    // Only a pending promise holds callbacks: a resolved one handed them out when it resolved,
    // and one still delivering them is held alive by the thread that delivers.
    let (isFulfilled, released) = state.withLock { state -> (Bool, CallbackList<PromiseCallback>) in
      if state.isResolved { return (state.isFulfilled, CallbackList()) }
      return (false, state.waitingCount > 0 ? state.takeAllWaiting() : CallbackList())
    }
    if isFulfilled { slot.deinitialize(count: 1) }
    slot.deallocate()
    // The callbacks of a pending promise may hold the next promise of a chain, whose own
    // callbacks hold the next, and so on: released through the trampoline, the chain is freed
    // one link after another instead of one `deinit` inside the next. (Consumed, so that no
    // copy of the array outlives the call: the last reference must go inside it.)
    if !released.isEmpty { Trampoline.release(consume released) }
  }

  /// Runs `body` with the lock held and returns what it returns.
  func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try state.withLock(body)
  }

  /// The resolution in `state`, read with the lock held: `nil` while pending.
  func result(in state: State) -> Result<Value, any Error>? {
    switch state.phase {
    case .pending: nil
    case .fulfilled: .success(slot.pointee)
    case .rejected(let error): .failure(error)
    }
  }
}

/// What a promise keeps while pending for each interested party; its type does not depend on
/// `Value`.
enum PromiseCallback: Sendable {
  /// A function that receives a pointer to the `Result<Value, any Error>` the promise is
  /// resolved with.
  case function(@Sendable (UnsafeRawPointer) -> Void)
  /// A task suspended in `value`: its continuation, kept bare, so that awaiting a pending
  /// promise allocates no closure.
  case task(SuspendedTask)
}

/// The `UnsafeContinuation<Value, any Error>` of a task awaiting a promise, with its type
/// erased (the continuation is one pointer; the promise knows `Value` and restores it).
struct SuspendedTask: @unchecked Sendable {
  // Safe: a continuation may be resumed from any thread, and this one is resumed exactly once,
  // by whoever takes it out of the promise's state with the lock held.

  /// The continuation's bits.
  let continuation: UnsafeRawPointer

  /// Keeps `continuation`.
  init<Value>(_ continuation: UnsafeContinuation<Value, any Error>) {
    self.continuation = unsafeBitCast(continuation, to: UnsafeRawPointer.self)
  }

  /// Resumes the task with the resolution at `result`, a `Result<Value, any Error>`.
  func resume<Value: Sendable>(_: Value.Type, with result: UnsafeRawPointer) {
    unsafeBitCast(continuation, to: UnsafeContinuation<Value, any Error>.self)
      .resume(with: result.assumingMemoryBound(to: Result<Value, any Error>.self).pointee)
  }
}
