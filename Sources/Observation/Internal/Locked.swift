// The one lock of every concurrent type in this module, and the cancellation flag that watchers
// read on every delivery. `Mutex` and `Atomic` need macOS 15 / iOS 18, so Apple platforms use
// `os_unfair_lock` (what `Mutex` itself uses there); Linux uses the toolchain's `Mutex` and
// `Atomic`, which are always available.

#if canImport(Darwin)
  import Darwin

  /// State that is only ever read or written while its lock is held.
  ///
  /// Locking it again from the thread that holds it traps (`os_unfair_lock` reports the
  /// recursion); it never deadlocks silently.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, Sendable {
    /// The lock and the state it protects, at a stable address.
    // @unchecked: safe because `state` is only touched while `lock` is held.
    @usableFromInline
    final class Storage: @unchecked Sendable {
      @usableFromInline let lock: UnsafeMutablePointer<os_unfair_lock>
      @usableFromInline var state: State

      @usableFromInline
      init(_ state: State) {
        lock = .allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock())
        self.state = state
      }

      deinit {
        lock.deinitialize(count: 1)
        lock.deallocate()
      }
    }

    @usableFromInline let storage: Storage

    @inlinable
    init(_ state: State) {
      storage = Storage(state)
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      os_unfair_lock_lock(storage.lock)
      defer { os_unfair_lock_unlock(storage.lock) }
      return try body(&storage.state)
    }
  }

  /// A flag raised once, read without taking a lock on the delivery path's behalf.
  @usableFromInline
  final class Flag: Sendable {
    @usableFromInline let raised = Locked(false)

    @usableFromInline
    init() {}

    /// Whether ``raise()`` was called.
    @inlinable
    var isRaised: Bool {
      raised.withLock { $0 }
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    @usableFromInline
    func raise() -> Bool {
      raised.withLock { raised in
        defer { raised = true }
        return !raised
      }
    }
  }
#else
  import Synchronization

  /// State that is only ever read or written while its lock is held.
  ///
  /// Locking it again from the thread that holds it traps (`Mutex` reports the recursion); it
  /// never deadlocks silently.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<State>

    @inlinable
    init(_ state: State) {
      mutex = Mutex(state)
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
        try body(&state)
      }
    }
  }

  /// A flag raised once; reading it is a single atomic load.
  @usableFromInline
  final class Flag: Sendable {
    @usableFromInline let raised = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Whether ``raise()`` was called.
    @inlinable
    var isRaised: Bool {
      raised.load(ordering: .acquiring)
    }

    /// Raises the flag; returns `true` for the call that raised it, `false` when it was up.
    @usableFromInline
    func raise() -> Bool {
      !raised.exchange(true, ordering: .acquiringAndReleasing)
    }
  }
#endif
