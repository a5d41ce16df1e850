// The one lock of TinyBlocks.
//
// - Linux: the standard library's `Mutex`, plus a record of the thread that holds it, so that a
//   thread taking a lock it already holds stops the program with a message instead of hanging.
// - Apple platforms: `os_unfair_lock` (`Mutex` needs macOS 15), which stops the program itself
//   when a thread takes it again.
//
// `Locked` is a public type of this internal target with `@inlinable` package members: otherwise
// the other modules of the package do not see their bodies, and every `init` and `withLock` is
// an unspecialized generic call. The holder's thread is read through `ThreadState.number`,
// which is read again after every `await` (see there).
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

    /// Guards `state`. `reentryMessage` is ignored here: `os_unfair_lock` stops the program
    /// with its own message when a thread takes it again.
    @inlinable
    package init(_ state: State, reentryMessage: StaticString = Locked.defaultReentryMessage) {
      buffer = .create(minimumCapacity: 1) { _ in state }
      buffer.withUnsafeMutablePointerToElements { $0.initialize(to: os_unfair_lock_s()) }
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
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
    /// The thread that holds the lock (see `ThreadState.number`), or 0. Atomic because a thread
    /// reads it before taking the lock; only the holder writes it. Relaxed is enough: a thread
    /// can read its own number there only if it wrote it itself and still holds the lock, and
    /// the `Mutex` orders the state itself.
    @usableFromInline let holder = Atomic<UInt>(0)
    /// What the program stops with when a thread takes the lock again.
    @usableFromInline let reentryMessage: StaticString

    /// Guards `state`; a thread that takes the lock while holding it stops the program with
    /// `reentryMessage`.
    /// The state is moved in, not copied (Promise map×3 + whenResolved).
    @inlinable
    package init(
      _ state: consuming State, reentryMessage: StaticString = Locked.defaultReentryMessage
    ) {
      mutex = Mutex(state)
      self.reentryMessage = reentryMessage
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    ///
    /// Taking the lock again from inside `body` stops the program with the lock's message.
    @inlinable
    package borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let thread = ThreadState.number
      if holder.load(ordering: .relaxed) == thread { fatalError("\(reentryMessage)") }
      return try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
        holder.store(thread, ordering: .relaxed)
        defer { holder.store(0, ordering: .relaxed) }
        return try body(&state)
      }
    }
  }
#endif

extension Locked {
  /// The message for a lock whose holder never runs user code: taking it again is a bug in
  /// TinyBlocks.
  @inlinable
  package static var defaultReentryMessage: StaticString {
    "TinyBlocks: a lock was taken again by the thread that holds it (a bug in TinyBlocks: no user code runs under its locks)"
  }
}
