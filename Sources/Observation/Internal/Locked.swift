// The one lock of every concurrent type in this module, and the cancellation flag that watchers
// read on every delivery.
//
// Apple platforms: `os_unfair_lock` (`Mutex` needs macOS 15 / iOS 18 and uses the same lock
// there). Linux: the toolchain's `Mutex`, the fastest lock here. Its contended path hands the
// lock over in the kernel (`FUTEX_LOCK_PI`), where the thread sanitizer cannot see it, so under
// the sanitizer every contended critical section would be reported as a race; when the process
// runs under the sanitizer, `Locked` tells it about each acquire and release (the hooks are
// looked up once and are `nil` otherwise). Locking again from the thread that holds the lock
// traps on both platforms: on Linux with a message naming the API (each lock records its holding
// thread), on Apple platforms with `os_unfair_lock`'s own.

#if canImport(Darwin)
  import Darwin

  /// State that is only ever read or written while its lock is held.
  ///
  /// Locking it again from the thread that holds it traps; it never deadlocks silently.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, Sendable {
    /// The lock and the state it protects, at stable addresses.
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
#else
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #elseif canImport(Android)
    import Android
  #endif
  import Synchronization

  /// State that is only ever read or written while its lock is held.
  ///
  /// Locking it again from the thread that holds it traps with a message naming the APIs whose
  /// closures run under the lock (see `recursiveLockFailure()`); it never deadlocks silently.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<State>
    /// The thread holding the lock (`pthread_self()`), or 0. Written only by that thread while
    /// it holds the lock, so a thread reads its own identity here only if it holds the lock.
    @usableFromInline let holder = Atomic<UInt>(0)
    /// Identifies this lock to the thread sanitizer; `nil` without it.
    @usableFromInline let sanitizerAddress: SanitizerAddress?

    @inlinable
    init(_ state: State) {
      mutex = Mutex(state)
      sanitizerAddress = threadSanitizer.map { _ in SanitizerAddress() }
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// Locking it again from the thread that holds it stops the program with
    /// `recursiveLockFailure()`'s message, which names the APIs whose closures run under the
    /// lock.
    @inlinable
    borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let thread = threadNumber(pthread_self())
      if holder.load(ordering: .relaxed) == thread { recursiveLockFailure() }
      let address = sanitizerAddress
      return try mutex.withLock { (state: inout sending State) throws(Failure) -> sending Result in
        holder.store(thread, ordering: .relaxed)
        defer { holder.store(0, ordering: .relaxed) }
        guard let address, let sanitizer = threadSanitizer else { return try body(&state) }
        sanitizer.acquire(address.pointer)
        defer { sanitizer.release(address.pointer) }
        return try body(&state)
      }
    }
  }

  /// A thread's `pthread_t` as a number (an integer on glibc, a pointer on some C libraries:
  /// both one word).
  @inlinable
  func threadNumber<Thread>(_ thread: Thread) -> UInt {
    unsafeBitCast(thread, to: UInt.self)
  }

  /// Stops the program when a thread locks a lock it holds: user code running under an atom's
  /// lock used that atom.
  @usableFromInline
  func recursiveLockFailure() -> Never {
    preconditionFailure(
      "TinyObservation: an atom was used from inside a closure that runs under its lock — "
        + "the body of Atom.update(_:), the local change of Atom.update(optimistically:commit:), "
        + "or a DerivedAtom's computation updated one of its sources")
  }

  /// A byte of memory whose address stands for one lock in the thread sanitizer's bookkeeping.
  @usableFromInline
  final class SanitizerAddress: Sendable {
    // nonisolated(unsafe): safe because only the address is used; the byte is never read or
    // written.
    @usableFromInline nonisolated(unsafe) let pointer = UnsafeMutableRawPointer.allocate(
      byteCount: 1, alignment: 1)

    @usableFromInline
    init() {}

    deinit {
      pointer.deallocate()
    }
  }

  /// The thread sanitizer's annotation hooks, when the process runs under it.
  @usableFromInline
  struct ThreadSanitizerHooks: Sendable {
    @usableFromInline let acquire: @convention(c) (UnsafeMutableRawPointer?) -> Void
    @usableFromInline let release: @convention(c) (UnsafeMutableRawPointer?) -> Void
  }

  /// The hooks, or `nil` without the thread sanitizer.
  @usableFromInline
  let threadSanitizer: ThreadSanitizerHooks? = {
    typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void
    guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release")
    else { return nil }
    return ThreadSanitizerHooks(
      acquire: unsafeBitCast(acquire, to: Hook.self), release: unsafeBitCast(release, to: Hook.self)
    )
  }()
#endif

#if canImport(Darwin)
  /// A flag raised once; reading it takes the flag's lock (`Atomic` needs macOS 15).
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
