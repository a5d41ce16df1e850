#if canImport(Darwin)
  import os
#else
  import Synchronization
#endif

/// A value that is read and changed only under a lock.
///
/// On Linux it is the toolchain's `Mutex`, stored inline (no allocation). On Apple platforms,
/// where `Mutex` needs macOS 15 / iOS 18, it is an `os_unfair_lock` next to the value in one
/// small object. The body runs with the lock held: it must be short and never call user code.
struct Locked<State>: ~Copyable {
  #if canImport(Darwin)
    private let box: Box

    init(_ state: consuming sending State) {
      box = Box(state)
    }

    borrowing func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
      os_unfair_lock_lock(box.lock)
      defer { os_unfair_lock_unlock(box.lock) }
      return body(&box.state)
    }

    /// The lock and the value it protects.
    private final class Box {
      let lock: os_unfair_lock_t
      var state: State

      init(_ state: State) {
        self.state = state
        lock = .allocate(capacity: 1)
        lock.initialize(to: os_unfair_lock())
      }

      deinit {
        lock.deinitialize(count: 1)
        lock.deallocate()
      }
    }
  #else
    private let mutex: Mutex<State>

    init(_ state: consuming sending State) {
      mutex = Mutex(state)
    }

    borrowing func withLock<Result: Sendable>(_ body: (inout State) -> Result) -> Result {
      mutex.withLock { state in body(&state) }
    }
  #endif
}

#if canImport(Darwin)
  // Safe: the value is only reached through `withLock`, under the box's one lock.
  extension Locked: @unchecked Sendable {}
#else
  extension Locked: Sendable {}
#endif
