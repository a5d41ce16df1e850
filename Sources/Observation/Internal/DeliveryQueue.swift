import TinyInternals

#if !canImport(Darwin)
  import Synchronization
#endif

/// The state machine behind serial delivery: a queue of pending batches, kept under the atom's
/// lock, and a ``DeliveryTurn`` that says whether some thread is delivering.
///
/// A thread that makes a change submits its batch. When nobody is delivering, the submitting
/// thread becomes the deliverer and gets the batch back to deliver itself; otherwise the batch
/// waits for the thread that is delivering. After each batch the deliverer calls
/// ``DeliveryTurn/finish()`` without the lock: when no batch waits, that ends its turn, so a
/// change that no other change overtakes takes the atom's lock once. When batches wait, the
/// deliverer takes them one at a time with ``takeWaiting()``, under the lock. So batches are
/// delivered one at a time, in submission order, by exactly one thread at a time, and never
/// while the lock around this state is held.
struct DeliveryQueue<Batch> {
  var pending = FIFO<Batch>()
  /// Whose turn it is; the deliverer reads it without the lock, so the atom keeps a reference
  /// to it beside the lock.
  let turn = DeliveryTurn()

  init() {}

  /// Whether some thread is delivering batches.
  var isDelivering: Bool { turn.load() != DeliveryTurn.idle }

  /// The number of batches waiting for the deliverer.
  var pendingCount: Int { pending.count }

  /// Submits a batch, under the atom's lock. Returns it when the caller must deliver it now (it
  /// has become the deliverer), or `nil` when it was queued for the thread that is delivering.
  @inline(__always)
  mutating func submit(_ batch: consuming Batch) -> Batch? {
    submit(consume batch, seen: turn.load())
  }

  /// ``submit(_:)``, given the turn it loaded. Tests pass a turn that the deliverer has left
  /// since, to force the race between a submitter and a deliverer that finishes without the
  /// lock.
  @inline(__always)
  mutating func submit(_ batch: consuming Batch, seen current: UInt8) -> Batch? {
    if current == DeliveryTurn.waiting
      || (current == DeliveryTurn.delivering
        && turn.exchange(expected: DeliveryTurn.delivering, with: DeliveryTurn.waiting))
    {
      pending.append(consume batch)
      return nil
    }
    // Nobody delivers: the turn was `idle` (only a thread holding the lock leaves `idle`, so
    // nothing changed it meanwhile), or the deliverer finished after the load (`delivering` →
    // `idle` is the one change made without the lock). The caller delivers.
    turn.store(DeliveryTurn.delivering)
    return batch
  }

  /// Called by the deliverer, under the atom's lock, when ``DeliveryTurn/finish()`` found
  /// batches waiting: returns the first one. (Should none be there, it ends the turn and
  /// returns `nil`, so that later batches are still delivered.)
  mutating func takeWaiting() -> Batch? {
    guard let batch = pending.popFirst() else {
      turn.store(DeliveryTurn.idle)
      return nil
    }
    if pending.isEmpty { turn.store(DeliveryTurn.delivering) }
    return batch
  }
}

extension DeliveryQueue: Sendable where Batch: Sendable {}

/// Whose turn it is to deliver an atom's changes: nobody's (``idle``), a thread's with no batch
/// waiting (``delivering``), or a thread's with batches waiting (``waiting``).
///
/// Submitters change it under the atom's lock. The deliverer changes it without the lock only
/// from ``delivering`` to ``idle`` (``finish()``), and a submitter that queues a batch moves it
/// from ``delivering`` to ``waiting`` with an exchange that fails if the deliverer finished
/// first. It is a leaf: nothing is called while it is changed.
final class DeliveryTurn: Sendable {
  /// Nobody delivers.
  static var idle: UInt8 { 0 }
  /// A thread delivers, and no batch waits for it.
  static var delivering: UInt8 { 1 }
  /// A thread delivers, and batches wait for it.
  static var waiting: UInt8 { 2 }

  #if canImport(Darwin)
    // `Atomic` needs macOS 15: the turn takes a lock of its own there, a leaf lock that guards
    // this one byte.
    let state = Locked(DeliveryTurn.idle)
  #else
    let state = Atomic<UInt8>(DeliveryTurn.idle)
  #endif

  init() {}

  /// The current turn.
  func load() -> UInt8 {
    #if canImport(Darwin)
      state.withLock { $0 }
    #else
      state.load(ordering: .acquiring)
    #endif
  }

  /// Sets the turn; only a thread holding the atom's lock calls it.
  func store(_ turn: UInt8) {
    #if canImport(Darwin)
      state.withLock { $0 = turn }
    #else
      state.store(turn, ordering: .releasing)
    #endif
  }

  /// Replaces `expected` with `new`; returns whether the turn was `expected`.
  func exchange(expected: UInt8, with new: UInt8) -> Bool {
    #if canImport(Darwin)
      state.withLock { state in
        guard state == expected else { return false }
        state = new
        return true
      }
    #else
      state.compareExchange(
        expected: expected, desired: new, ordering: .acquiringAndReleasing
      ).exchanged
    #endif
  }

  /// Ends the deliverer's turn when no batch waits; returns whether it did. Called without the
  /// atom's lock, after each batch.
  func finish() -> Bool {
    exchange(expected: DeliveryTurn.delivering, with: DeliveryTurn.idle)
  }
}
