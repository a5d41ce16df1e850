#if canImport(Darwin)
  import TinyInternals
#else
  import Synchronization
#endif

// The one atomic of TinyObservation, for the "set → watchers" goals: a delivery reads each
// watcher's stop flag, and a deliverer ends its turn, without taking a lock.

/// A byte read and changed from any thread: an atomic on Linux, a byte behind a lock on Apple
/// platforms (`Atomic` needs macOS 15; a leaf lock: nothing is called while it is held). A
/// flag is a byte that is 0 or 1.
@usableFromInline final class AtomicOrLocked: Sendable {
  #if canImport(Darwin)
    @usableFromInline let cell: Locked<UInt8>
  #else
    @usableFromInline let cell: Atomic<UInt8>
  #endif

  /// A byte holding `value`; a flag starts down (0).
  @usableFromInline init(_ value: UInt8 = 0) {
    #if canImport(Darwin)
      cell = Locked(value)
    #else
      cell = Atomic(value)
    #endif
  }

  /// The current value.
  @inlinable func load() -> UInt8 {
    #if canImport(Darwin)
      cell.withLock { $0 }
    #else
      cell.load(ordering: .acquiring)
    #endif
  }

  /// Replaces the value.
  @inlinable func store(_ value: UInt8) {
    #if canImport(Darwin)
      cell.withLock { $0 = value }
    #else
      cell.store(value, ordering: .releasing)
    #endif
  }

  /// Replaces the value with `desired` if it is `expected`; returns whether it was.
  @inlinable func compareExchange(expected: UInt8, desired: UInt8) -> Bool {
    #if canImport(Darwin)
      cell.withLock { current in
        guard current == expected else { return false }
        current = desired
        return true
      }
    #else
      cell.compareExchange(expected: expected, desired: desired, ordering: .acquiringAndReleasing)
        .exchanged
    #endif
  }

  /// Whether the flag is up.
  @inlinable var isRaised: Bool { load() != 0 }

  /// Raises the flag; returns whether this call raised it (it was down).
  @discardableResult
  func raise() -> Bool {
    compareExchange(expected: 0, desired: 1)
  }

  /// Lowers the flag; returns whether it was up.
  func lower() -> Bool {
    compareExchange(expected: 1, desired: 0)
  }
}
