// The one lock of TinyBlocks. This file is copied, byte for byte, into the `Internal/` folder
// of every block that locks (each block is its own product, so none can import another);
// `.ci/shared-files` checks the copies and `.ci/shared-files --write` refreshes them. Edit the
// canonical copy, `Sources/Shared/Lock.swift`, only.
//
// Why this lock:
//
// - Linux: the toolchain's `Mutex`. Measured here in one run against `pthread_mutex_t`, an
//   uncontended lock and unlock costs about a third as much, and two threads contending on
//   one lock about a third as much too (the glibc mutex parks a waiter in the kernel at
//   once; `Mutex` spins briefly first).
// - Apple platforms: `os_unfair_lock`, in the same allocation as the state (`Mutex` needs
//   macOS 15 / iOS 18, above the package's floor, and is built on the same lock).
// - The thread sanitizer sees `os_unfair_lock` and `pthread_mutex_t` by itself, but not
//   `Mutex` on Linux, whose contended path hands the lock over inside the kernel
//   (`FUTEX_LOCK_PI`). So when the process runs under the sanitizer, each acquire and release
//   is also reported to it (`__tsan_acquire` / `__tsan_release`, looked up once; `nil`
//   without the sanitizer, so ordinary builds pay one predictable branch).
// - Taking the lock again on the thread that holds it can never succeed. On Linux each lock
//   records its holder, so that stops the program with `lockTakenAgainMessage`, which each
//   block defines to name the closures it runs under a lock; on Apple platforms
//   `os_unfair_lock` stops the program itself ("Trying to recursively lock an
//   os_unfair_lock"). Neither deadlocks silently.
// - No user code runs under it: a block takes out of the locked state what must be called or
//   released, unlocks, and only then calls or releases it. (The documented exceptions are
//   closures whose whole point is to run atomically, such as the body of `Atom.update`.)

#if canImport(Darwin)
  import Darwin

  /// State that is only ever read or written with its lock held.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, @unchecked Sendable {
    // @unchecked: the state in `buffer` is only reached with the lock in `buffer` held.

    /// The state, with the lock in the same allocation (a lock must not move in memory).
    @usableFromInline typealias Buffer = ManagedBuffer<State, os_unfair_lock_s>

    @usableFromInline let buffer: Buffer

    @inlinable
    init(_ state: State) {
      buffer = Buffer.create(minimumCapacity: 1) { _ in state }
      buffer.withUnsafeMutablePointerToElements { $0.initialize(to: os_unfair_lock_s()) }
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    ///
    /// Taking the lock again from inside `body` stops the program.
    @inlinable
    borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let (state, lock) = buffer.withUnsafeMutablePointers { ($0, $1) }
      os_unfair_lock_lock(lock)
      defer { os_unfair_lock_unlock(lock) }
      return try body(&state.pointee)
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
  #if canImport(_SynchronizationShims)
    import _SynchronizationShims
  #endif

  /// State that is only ever read or written with its lock held.
  @usableFromInline
  struct Locked<State: Sendable>: ~Copyable, Sendable {
    @usableFromInline let mutex: Mutex<State>
    /// The thread holding the lock (see `currentThreadNumber()`), or 0. Written only by that
    /// thread while it holds the lock, so a thread reads its own identity here only if it
    /// holds the lock.
    @usableFromInline let holder = Atomic<UInt>(0)
    /// Stands for this lock in the thread sanitizer's bookkeeping; `nil` without it.
    @usableFromInline let sanitizerAddress: SanitizerAddress?

    @inlinable
    init(_ state: consuming State) {
      mutex = Mutex(state)
      sanitizerAddress = threadSanitizer.map { _ in SanitizerAddress() }
    }

    /// Runs `body` with exclusive access to the state and returns what it returns.
    ///
    /// Taking the lock again from inside `body` stops the program with
    /// `lockTakenAgainMessage`.
    @inlinable
    borrowing func withLock<Result, Failure: Error>(
      _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let thread = currentThreadNumber()
      if holder.load(ordering: .relaxed) == thread { lockTakenAgain() }
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

  #if canImport(_SynchronizationShims)
    /// The calling thread's number: its kernel thread id, read from the per-thread cache that
    /// `Mutex` itself fills to mark the lock's owner (one thread-local load; the optimizer can
    /// fold it with the one `Mutex` makes). The cache is a thread-local variable, which the
    /// compiler reads again after every `await`: a task that resumes on another thread gets
    /// that thread's number, as `Mutex` relies on too.
    @inlinable
    func currentThreadNumber() -> UInt {
      UInt(_swift_stdlib_gettid())
    }
  #else
    /// The calling thread's number: `pthread_self`, called through a pointer found at run time.
    /// The C library declares `pthread_self` `const`, so the optimizer may reuse one call's
    /// result for a later one; in an async function that inlines two locks around an `await`,
    /// the second would then check the thread the task ran on before it suspended. A call
    /// through an unknown pointer is made every time.
    @inlinable
    func currentThreadNumber() -> UInt {
      threadNumber(currentThread())
    }

    /// A `pthread_t` as a number (an integer on glibc, a pointer on some C libraries: both one
    /// word).
    @inlinable
    func threadNumber<Thread>(_ thread: Thread) -> UInt {
      unsafeBitCast(thread, to: UInt.self)
    }

    /// `pthread_self`, found at run time (see `currentThreadNumber()`).
    @usableFromInline
    let currentThread: @convention(c) () -> pthread_t = {
      guard let symbol = dlsym(nil, "pthread_self") else {
        fatalError("Locked: pthread_self not found")
      }
      return unsafeBitCast(symbol, to: (@convention(c) () -> pthread_t).self)
    }()
  #endif

  /// Stops the program: a thread took a lock it holds.
  @usableFromInline
  @inline(never)
  func lockTakenAgain() -> Never {
    fatalError(lockTakenAgainMessage)
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
