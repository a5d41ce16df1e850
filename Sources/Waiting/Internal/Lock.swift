#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The platform's mutual-exclusion lock, used in place at an address the caller provides: an
/// `os_unfair_lock` on Apple platforms, a `pthread_mutex_t` elsewhere.
///
/// The toolchain's `Mutex` would need no allocation, but it needs macOS 15 / iOS 18, and on
/// Linux the thread sanitizer cannot see its futex, so it reported every use as a race. The
/// lock is not recursive; whatever it guards must be short and never call user code.
enum PlatformLock {
  #if canImport(Darwin)
    typealias Primitive = os_unfair_lock
  #else
    typealias Primitive = pthread_mutex_t
  #endif

  /// Makes the memory at `address` an unlocked lock.
  static func initialize(at address: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      address.initialize(to: os_unfair_lock())
    #else
      address.initialize(to: pthread_mutex_t())
      pthread_mutex_init(address, nil)
    #endif
  }

  /// Ends the lock at `address`, which must be unlocked.
  static func deinitialize(at address: UnsafeMutablePointer<Primitive>) {
    #if !canImport(Darwin)
      pthread_mutex_destroy(address)
    #endif
    address.deinitialize(count: 1)
  }

  /// Takes the lock, waiting for it if another thread holds it.
  static func lock(_ address: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_lock(address)
    #else
      pthread_mutex_lock(address)
    #endif
  }

  /// Releases the lock.
  static func unlock(_ address: UnsafeMutablePointer<Primitive>) {
    #if canImport(Darwin)
      os_unfair_lock_unlock(address)
    #else
      pthread_mutex_unlock(address)
    #endif
  }
}

/// A lock in its own small allocation, so it keeps a stable address.
struct Lock: ~Copyable {
  private let primitive: UnsafeMutablePointer<PlatformLock.Primitive>

  init() {
    primitive = .allocate(capacity: 1)
    PlatformLock.initialize(at: primitive)
  }

  deinit {
    PlatformLock.deinitialize(at: primitive)
    primitive.deallocate()
  }

  /// Runs `body` with the lock held and returns what it returns.
  func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    PlatformLock.lock(primitive)
    defer { PlatformLock.unlock(primitive) }
    return try body()
  }
}
