// The one lock of TinyBlocks: the platform's own.
//
// - Linux: the standard library's `Mutex`. A thread that takes a lock it already holds stops the
//   program ("Recursive call to lock Mutex"): the kernel's priority-inheriting futex refuses it.
// - Apple platforms: `os_unfair_lock` (`Mutex` needs macOS 15), which stops the program itself
//   when a thread takes it again.
//
// `Locked` is a public type of this internal target with `@inlinable` package members: otherwise
// the other modules of the package do not see their bodies, and every `init` and `withLock` is
// an unspecialized generic call.
//
// No user code runs under it: a block takes out of the locked state what must be called or
// released, unlocks, and only then calls or releases it. (The documented exceptions are closures
// whose whole point is to run atomically, such as the body of `Atom.update`.)

#if canImport(Darwin)
  import Darwin

  /// State that is only ever read or written with its lock held.
  ///
  /// Public, with package members, so that `withLock` is specialized in the blocks that call it
  /// (the optimizer does not specialize the inlinable members of a package type across modules).
  public struct Locked<State: Sendable>: ~Copyable, @unchecked Sendable {
    // @unchecked: the state in `buffer` is only reached with the lock in `buffer` held.

    /// The state, with the lock in the same allocation (a lock must not move in memory).
    @usableFromInline let buffer: ManagedBuffer<State, os_unfair_lock_s>

    /// Guards `state`.
    @inlinable
    package init(_ state: State) {
      buffer = .create(minimumCapacity: 1) { _ in state }
      buffer.withUnsafeMutablePointerToElements { $0.initialize(to: os_unfair_lock_s()) }
    }

    /// Runs `body` with exclusive access to the state and returns what it returns. Taking the
    /// lock again from inside `body` stops the program.
    @inlinable
    package borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try buffer.withUnsafeMutablePointers { (state, lock) throws(Failure) -> Result in
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        return try body(&state.pointee)
      }
    }
  }
#else
  import Synchronization

  /// State that is only ever read or written with its lock held.
  ///
  /// Public, with package members, so that `withLock` is specialized in the blocks that call it
  /// (the optimizer does not specialize the inlinable members of a package type across modules).
  public struct Locked<State: Sendable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<State>
    /// For the thread sanitizer, which does not see a `Mutex` handed over inside the kernel: each
    /// holder ends with a releasing store here, and the next begins with an acquiring load, so
    /// that one's writes happen before the other's. On x86 both are plain moves.
    @usableFromInline let handOver = Atomic(false)

    /// Guards `state`, moved in, not copied (the Promise map×3 goal).
    @inlinable
    package init(_ state: consuming State) {
      mutex = Mutex(state)
    }

    /// Runs `body` with exclusive access to the state and returns what it returns. Taking the
    /// lock again from inside `body` stops the program.
    @inlinable
    package borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
        _ = handOver.load(ordering: .acquiring)
        defer { handOver.store(false, ordering: .releasing) }
        return try body(&state)
      }
    }
  }
#endif
