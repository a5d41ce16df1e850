#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A small mutual-exclusion lock: `os_unfair_lock` on Apple platforms, a pthread mutex
/// elsewhere.
///
/// Not `Synchronization.Mutex`: it needs macOS 15, and on Linux its contended path hands the
/// lock over in the kernel (`FUTEX_LOCK_PI`), where the thread sanitizer cannot see it, so the
/// sanitizer would report the state it guards as raced. Not recursive: code holding it never
/// calls out to user code.
final class Lock: @unchecked Sendable {  // safe: the platform lock has a stable heap address
  #if canImport(Darwin)
    private let handle: UnsafeMutablePointer<os_unfair_lock_s>
  #else
    private let handle: UnsafeMutablePointer<pthread_mutex_t>
  #endif

  init() {
    handle = .allocate(capacity: 1)
    #if canImport(Darwin)
      handle.initialize(to: os_unfair_lock_s())
    #else
      handle.initialize(to: pthread_mutex_t())
      pthread_mutex_init(handle, nil)
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(handle)
    #endif
    handle.deinitialize(count: 1)
    handle.deallocate()
  }

  /// Runs `body` with the lock held.
  @inline(__always)
  func withLock<Output, Failure: Error>(
    _ body: () throws(Failure) -> Output
  ) throws(Failure) -> Output {
    #if canImport(Darwin)
      os_unfair_lock_lock(handle)
      defer { os_unfair_lock_unlock(handle) }
    #else
      pthread_mutex_lock(handle)
      defer { pthread_mutex_unlock(handle) }
    #endif
    return try body()
  }
}
