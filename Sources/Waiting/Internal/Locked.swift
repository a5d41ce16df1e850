#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value that is read and changed only under a lock.
///
/// The lock and the value share one heap allocation, so they keep a stable address: an
/// `os_unfair_lock` on Apple platforms, a `pthread_mutex_t` elsewhere. (The toolchain's `Mutex`
/// would need no allocation, but needs macOS 15 / iOS 18, and on Linux the thread sanitizer
/// cannot see its futex, so it reported every use as a race.) The body runs with the lock held:
/// it must be short and never call user code.
struct Locked<State>: ~Copyable {
  #if canImport(Darwin)
    private typealias PlatformLock = os_unfair_lock
  #else
    private typealias PlatformLock = pthread_mutex_t
  #endif

  private let lock: UnsafeMutablePointer<PlatformLock>
  private let state: UnsafeMutablePointer<State>

  init(_ initialState: consuming State) {
    let stateOffset = Self.stateOffset
    let memory = UnsafeMutableRawPointer.allocate(
      byteCount: stateOffset + MemoryLayout<State>.size,
      alignment: Swift.max(MemoryLayout<PlatformLock>.alignment, MemoryLayout<State>.alignment))
    lock = memory.bindMemory(to: PlatformLock.self, capacity: 1)
    state = (memory + stateOffset).bindMemory(to: State.self, capacity: 1)
    state.initialize(to: initialState)
    #if canImport(Darwin)
      lock.initialize(to: os_unfair_lock())
    #else
      lock.initialize(to: pthread_mutex_t())
      pthread_mutex_init(lock, nil)
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(lock)
    #endif
    state.deinitialize(count: 1)
    lock.deinitialize(count: 1)
    UnsafeMutableRawPointer(lock).deallocate()
  }

  /// Runs `body` on the value with the lock held, and returns what it returns.
  borrowing func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    #if canImport(Darwin)
      os_unfair_lock_lock(lock)
      defer { os_unfair_lock_unlock(lock) }
    #else
      pthread_mutex_lock(lock)
      defer { pthread_mutex_unlock(lock) }
    #endif
    return try body(&state.pointee)
  }

  /// Where the value starts in the allocation: after the lock, aligned for the value.
  private static var stateOffset: Int {
    let alignment = MemoryLayout<State>.alignment
    return (MemoryLayout<PlatformLock>.size + alignment - 1) / alignment * alignment
  }
}

// Safe: the value is only reached through `withLock`, under the one lock stored beside it.
extension Locked: @unchecked Sendable where State: Sendable {}
