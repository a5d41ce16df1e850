#if canImport(Darwin)
  import TinyInternals
#else
  import Synchronization
  import TinyInternals
#endif

// The values that threads read and change without the lock of the atom or watch they belong
// to, each an atomic on Linux and a value behind a lock of its own on Apple platforms (`Atomic`
// needs macOS 15).

/// A flag read and changed from any thread: a watch's stop flag, which its token raises and
/// every delivery reads, and an atom's tracking flag (see ``ReadProbe``).
@usableFromInline final class Flag: Sendable {
  #if canImport(Darwin)
    @usableFromInline let raised = Locked(false)
  #else
    // An atomic, not the lock: the goals of a set to 10 watchers, and of an update, need a
    // delivery to read each watch's flag, and a change the tracking flag, without a lock.
    @usableFromInline let raised = Atomic(false)
  #endif

  init() {}

  /// Whether the flag is up.
  @inlinable var isRaised: Bool {
    #if canImport(Darwin)
      raised.withLock { $0 }
    #else
      raised.load(ordering: .acquiring)
    #endif
  }

  /// Raises the flag; returns whether this call raised it (it was down).
  @discardableResult
  func raise() -> Bool {
    #if canImport(Darwin)
      raised.withLock { raised in
        defer { raised = true }
        return !raised
      }
    #else
      !raised.exchange(true, ordering: .acquiringAndReleasing)
    #endif
  }

  /// Lowers the flag; returns whether it was up. Reads it first, so that a flag that is down
  /// costs no write.
  @inlinable func lower() -> Bool {
    #if canImport(Darwin)
      raised.withLock { raised in
        defer { raised = false }
        return raised
      }
    #else
      raised.load(ordering: .acquiring)
        && raised.exchange(false, ordering: .acquiringAndReleasing)
    #endif
  }
}

/// Whose turn it is to deliver an atom's changes: nobody's, a deliverer's, or a deliverer's
/// with changes waiting for it in the atom's state. Only a holder of the atom's lock takes the
/// turn or marks that changes wait (and queues them in the same hold); the deliverer ends its
/// turn without the lock when nothing waits, and otherwise takes what waits under the lock.
@usableFromInline final class DeliveryTurn: Sendable {
  @usableFromInline static var idle: UInt8 { 0 }
  @usableFromInline static var delivering: UInt8 { 1 }
  @usableFromInline static var waiting: UInt8 { 2 }

  #if canImport(Darwin)
    @usableFromInline let word = Locked(DeliveryTurn.idle)
  #else
    // An atomic (the set → 1 and set → 10 goals): a turn that ends with nothing waiting does not
    // take the atom's lock a second time.
    @usableFromInline let word = Atomic(DeliveryTurn.idle)
  #endif

  init() {}

  /// Under the atom's lock: takes the turn (`true`), or marks that a change waits for the
  /// deliverer (`false`; queue it before unlocking).
  @inlinable func take() -> Bool {
    #if canImport(Darwin)
      word.withLock { word in
        defer { word = word == Self.idle ? Self.delivering : Self.waiting }
        return word == Self.idle
      }
    #else
      let seen = word.load(ordering: .acquiring)
      if seen == Self.waiting { return false }
      if seen == Self.delivering {
        let marked = word.compareExchange(
          expected: Self.delivering, desired: Self.waiting, ordering: .acquiringAndReleasing)
        if marked.exchanged { return false }
      }
      word.store(Self.delivering, ordering: .releasing)  // idle: only a lock holder leaves it
      return true
    #endif
  }

  /// Outside the lock, after a round of delivery: ends the turn and returns `true` when nothing
  /// waits; returns `false` when changes wait (take them under the lock).
  @inlinable func endUnlessWaiting() -> Bool {
    #if canImport(Darwin)
      word.withLock { word in
        guard word == Self.delivering else { return false }
        word = Self.idle
        return true
      }
    #else
      word.compareExchange(
        expected: Self.delivering, desired: Self.idle, ordering: .acquiringAndReleasing
      ).exchanged
    #endif
  }

  /// Under the atom's lock, taking what waits: the deliverer keeps its turn.
  @inlinable func keep() {
    #if canImport(Darwin)
      word.withLock { $0 = Self.delivering }
    #else
      word.store(Self.delivering, ordering: .releasing)
    #endif
  }

  /// Whether a thread is delivering, for tests.
  var isTaken: Bool {
    #if canImport(Darwin)
      word.withLock { $0 != Self.idle }
    #else
      word.load(ordering: .acquiring) != Self.idle
    #endif
  }
}
