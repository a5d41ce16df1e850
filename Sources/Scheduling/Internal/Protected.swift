#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A value that is only read or written with a lock held: an `os_unfair_lock` on Apple
/// platforms, a `pthread_mutex_t` elsewhere (the thread sanitizer sees both; the toolchain's
/// `Mutex` needs macOS 15, and on Linux the sanitizer cannot see its futex).
///
/// The lock is not recursive, so `body` must be short and must never call user code.
// Safe: `state` is only touched inside `withLock`, with `primitive` locked.
final class Protected<State>: @unchecked Sendable {
  #if canImport(Darwin)
    private typealias Primitive = os_unfair_lock
  #else
    private typealias Primitive = pthread_mutex_t
  #endif

  private let primitive: UnsafeMutablePointer<Primitive>
  private var state: State

  init(_ state: State) {
    self.state = state
    primitive = .allocate(capacity: 1)
    #if canImport(Darwin)
      primitive.initialize(to: os_unfair_lock())
    #else
      primitive.initialize(to: pthread_mutex_t())
      pthread_mutex_init(primitive, nil)
    #endif
  }

  deinit {
    #if !canImport(Darwin)
      pthread_mutex_destroy(primitive)
    #endif
    primitive.deinitialize(count: 1)
    primitive.deallocate()
  }

  /// Runs `body` on the state with the lock held and returns what it returns.
  func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    #if canImport(Darwin)
      os_unfair_lock_lock(primitive)
      defer { os_unfair_lock_unlock(primitive) }
    #else
      pthread_mutex_lock(primitive)
      defer { pthread_mutex_unlock(primitive) }
    #endif
    return try body(&state)
  }
}
