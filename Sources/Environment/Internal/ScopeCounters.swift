// The two counters the scopes read on every access to `Current`: atomics where the platform
// has them for every supported version (`Synchronization.Atomic` is there on Linux; on Apple
// platforms it needs macOS 15 and iOS 18, above the package's floor), else `Locked`. Both are
// noncopyable structs, stored inline in the object that holds them: a read is one load, with
// no object of its own to reach first.

#if canImport(Darwin)
  /// A count read on every access to `Current`.
  @usableFromInline
  struct Count: ~Copyable, Sendable {
    private let value = Locked(0)
    @usableFromInline var isZero: Bool { value.withLock { $0 == 0 } }
    func increment() { value.withLock { $0 += 1 } }
    func decrement() { value.withLock { $0 -= 1 } }
  }

  /// A flag that goes up once and is read on every access to a scope's world.
  @usableFromInline
  struct Flag: ~Copyable, Sendable {
    private let value = Locked(false)
    @usableFromInline var isRaised: Bool { value.withLock { $0 } }
    func raise() { value.withLock { $0 = true } }
    func lower() { value.withLock { $0 = false } }
  }
#else
  import Synchronization

  /// A count read on every access to `Current`.
  @usableFromInline
  struct Count: ~Copyable, Sendable {
    @usableFromInline let value = Atomic(0)
    @inlinable var isZero: Bool { value.load(ordering: .acquiring) == 0 }
    func increment() { value.add(1, ordering: .acquiringAndReleasing) }
    func decrement() { value.subtract(1, ordering: .acquiringAndReleasing) }
  }

  /// A flag that goes up once and is read on every access to a scope's world.
  @usableFromInline
  struct Flag: ~Copyable, Sendable {
    @usableFromInline let value = Atomic(false)
    @inlinable var isRaised: Bool { value.load(ordering: .acquiring) }
    func raise() { value.store(true, ordering: .releasing) }
    func lower() { value.store(false, ordering: .releasing) }
  }
#endif
