import TinyInternals

#if !canImport(Darwin)
  import Synchronization
#endif

/// A promise's lock and state, and the slot its value is kept in.
///
/// Nothing here depends on the promise's `Value`: the value's slot is untyped, and the promise
/// gives the type to the methods that read or free it. A promise's `deinit` is never
/// specialized for a `Value`, and there a stored property of a type generic over `Value` would be
/// destroyed through that type's metadata, looked up in the runtime's cache on every free; this
/// type's layout and code are static.
struct PromiseStorage: ~Copyable {
  /// The state's type: concrete, so its metadata and code are static.
  typealias State = PromiseState<PromiseCallback>

  /// The state, behind the promise's lock.
  let state: Locked<State>

  /// Room for one value of the promise's `Value`: initialized exactly when the state is
  /// fulfilled. It is written with the lock held, before the state says fulfilled, and never
  /// changes after that, so whoever has seen the state fulfilled (with the lock held), or
  /// ``isKnownFulfilled``, may read it without the lock.
  let slot: UnsafeMutableRawPointer

  /// Storage for a pending promise of `Value`.
  init<Value>(of _: Value.Type) {
    state = Locked(State())
    slot = UnsafeMutableRawPointer(UnsafeMutablePointer<Value>.allocate(capacity: 1))
  }

  /// Storage for a promise of `Value` rejected with `error`, resolved now.
  init<Value>(of _: Value.Type, rejectedWith error: any Error) {
    state = Locked(State(.rejected(error), stamp: nextResolutionStamp()))
    slot = UnsafeMutableRawPointer(UnsafeMutablePointer<Value>.allocate(capacity: 1))
  }

  /// Storage for a promise fulfilled with `value`, resolved now.
  init<Value>(fulfilledWith value: consuming Value) {
    let typed = UnsafeMutablePointer<Value>.allocate(capacity: 1)
    typed.initialize(to: value)
    slot = UnsafeMutableRawPointer(typed)
    state = Locked(State(.fulfilled, stamp: nextResolutionStamp()))
    markFulfilled()
  }

  #if canImport(Darwin)
    // Apple platforms below macOS 15 and iOS 18 have no atomics in the standard library: there
    // `value` reads whether the promise is fulfilled from the state, under the lock.

    /// Whether the promise is known to be fulfilled without taking the lock: never, here.
    var isKnownFulfilled: Bool { false }

    /// Records that the promise is fulfilled (the state itself says it, here).
    func markFulfilled() {}
  #else
    /// Whether the promise is fulfilled, readable without the lock: set (releasing) with the
    /// lock held, after the value's slot was written and the state fulfilled, so a reader that
    /// finds it set (acquiring) may read the slot.
    let fulfilledMark = Atomic<Bool>(false)

    /// Whether the promise is known to be fulfilled without taking the lock; once it is, the
    /// value's slot may be read.
    var isKnownFulfilled: Bool { fulfilledMark.load(ordering: .acquiring) }

    /// Records that the promise is fulfilled: called with the lock held, after the value's slot
    /// was written and the state fulfilled.
    func markFulfilled() { fulfilledMark.store(true, ordering: .releasing) }
  #endif

  /// The slot, typed: the promise's `Value` must be `Value`.
  func slot<Value>(of _: Value.Type) -> UnsafeMutablePointer<Value> {
    slot.assumingMemoryBound(to: Value.self)
  }

  /// Frees the value and the callbacks; the promise's `deinit` calls it once, with the
  /// promise's `Value`.
  func free<Value>(of _: Value.Type) {
    // Only a pending promise holds callbacks: a resolved one handed them out when it resolved,
    // and one still delivering them is held alive by the thread that delivers.
    let (isFulfilled, isRejected, released) = state.withLock {
      state -> (Bool, Bool, CallbackList<PromiseCallback>) in
      if state.isResolved { return (state.isFulfilled, !state.isFulfilled, CallbackList()) }
      return (false, false, state.waitingCount > 0 ? state.takeAllWaiting() : CallbackList())
    }
    // The callbacks of a pending promise, like a promise's value or error, may hold the next
    // promise of a chain, which holds the next, and so on: released through the trampoline,
    // the chain is freed one link after another instead of one `deinit` inside the next.
    // (Moved or consumed, so that no copy outlives the call: the last reference must go
    // inside it.)
    if isFulfilled {
      if _isPOD(Value.self) {
        slot(of: Value.self).deinitialize(count: 1)  // releases nothing, runs no code
      } else {
        Trampoline.release(slot(of: Value.self).move())
      }
    } else if isRejected {
      releaseError()
    }
    slot.deallocate()
    if !released.isEmpty { Trampoline.release(consume released) }
  }

  /// Takes a rejected promise's error out of its state, which would release it after the
  /// promise's `deinit`, nested, and releases it through the trampoline.
  @inline(never)
  private func releaseError() {
    let error = state.withLock { state -> (any Error)? in
      guard case .rejected(let error) = state.phase else { return nil }
      state.phase = .pending
      return error
    }
    if error != nil { Trampoline.release(consume error) }
  }

  /// Runs `body` with the lock held and returns what it returns.
  func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try state.withLock(body)
  }

  /// The resolution in `state`, read with the lock held: `nil` while pending.
  func result<Value>(in state: State, of _: Value.Type) -> Result<Value, any Error>? {
    switch state.phase {
    case .pending: nil
    case .fulfilled: .success(slot(of: Value.self).pointee)
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
