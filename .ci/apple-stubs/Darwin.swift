// A stand-in for Apple's `Darwin` module, used only by `.ci/check-apple-paths` to type-check
// TinyBlocks' `#if canImport(Darwin)` branches on Linux, where no Apple SDK exists. It
// declares exactly the Apple declarations those branches use, with the names, argument labels,
// types and optionality that Swift imports them with from Apple's headers; each cites the
// documented declaration it copies. Bodies are never run.
//
// Functions that return a value carry `@discardableResult`, as every function Swift imports
// from C does.
//
// Add a declaration here only together with a branch that uses it, copied from Apple's
// documentation, never adapted to make a branch compile.

// MARK: os_unfair_lock (<os/lock.h>, macOS 10.12+, iOS 10+)

/// https://developer.apple.com/documentation/os/os_unfair_lock_s (<os/lock.h>:
/// `typedef struct os_unfair_lock_s { uint32_t _os_unfair_lock_opaque; } os_unfair_lock,
/// *os_unfair_lock_t;`)
public struct os_unfair_lock_s {
  public var _os_unfair_lock_opaque: UInt32
  public init() { _os_unfair_lock_opaque = 0 }
  public init(_os_unfair_lock_opaque: UInt32) {
    self._os_unfair_lock_opaque = _os_unfair_lock_opaque
  }
}

/// https://developer.apple.com/documentation/os/os_unfair_lock
public typealias os_unfair_lock = os_unfair_lock_s

/// https://developer.apple.com/documentation/os/os_unfair_lock_t
public typealias os_unfair_lock_t = UnsafeMutablePointer<os_unfair_lock_s>

/// https://developer.apple.com/documentation/os/os_unfair_lock_lock
/// `extern void os_unfair_lock_lock(os_unfair_lock_t lock);` (<os/lock.h> is inside
/// `OS_ASSUME_NONNULL_BEGIN`, so the pointer is not optional)
public func os_unfair_lock_lock(_ lock: os_unfair_lock_t) {}

/// https://developer.apple.com/documentation/os/os_unfair_lock_unlock
/// `extern void os_unfair_lock_unlock(os_unfair_lock_t lock);`
public func os_unfair_lock_unlock(_ lock: os_unfair_lock_t) {}

// MARK: Thread-specific data (<pthread/pthread.h>, libpthread; the declarations sit between
// `clang assume_nonnull begin` and `end`, so only what is marked `_Nullable` is optional)

/// <sys/_pthread/_pthread_key_t.h>: `typedef __darwin_pthread_key_t pthread_key_t;`, and
/// <sys/_pthread/_pthread_types.h>: `typedef unsigned long __darwin_pthread_key_t;`
public typealias pthread_key_t = UInt

/// `int pthread_key_create(pthread_key_t *, void (* _Nullable)(void *));`
@discardableResult
public func pthread_key_create(
  _ key: UnsafeMutablePointer<pthread_key_t>,
  _ destructor: (@convention(c) (UnsafeMutableRawPointer) -> Void)?
) -> Int32 { 0 }

/// `void* _Nullable pthread_getspecific(pthread_key_t);`
@discardableResult
public func pthread_getspecific(_ key: pthread_key_t) -> UnsafeMutableRawPointer? { nil }

/// `int pthread_setspecific(pthread_key_t , const void * _Nullable);`
@discardableResult
public func pthread_setspecific(_ key: pthread_key_t, _ value: UnsafeRawPointer?) -> Int32 { 0 }

/// <sys/_pthread/_pthread_types.h>: `struct _opaque_pthread_t { long __sig; … };`
public struct _opaque_pthread_t {}

/// <sys/_pthread/_pthread_t.h>: `typedef __darwin_pthread_t pthread_t;`, and
/// <sys/_pthread/_pthread_types.h>: `typedef struct _opaque_pthread_t *__darwin_pthread_t;`
public typealias pthread_t = UnsafeMutablePointer<_opaque_pthread_t>

/// `pthread_t pthread_self(void);` (inside the nonnull region: never `nil`)
public func pthread_self() -> pthread_t {
  UnsafeMutablePointer(bitPattern: 1)!
}
