#if canImport(Darwin)
  import TinyInternals
#else
  import Synchronization
  import TinyInternals
#endif

/// Everything an ``Atom`` guards with its one lock, and every transition of it. Pure: the atom
/// runs these under its lock, then, after unlocking, does what they hand back: deliver a batch,
/// resume a waiter, release what a transition replaced (a `deinit` is user code that may use the
/// atom).
///
/// Delivery is serial: a change that finds nobody delivering makes its caller the deliverer and
/// hands it the batch; a change made meanwhile waits in ``waiting``. After each round the
/// deliverer ends its turn (``DeliveryTurn``) or, when changes wait, takes them with
/// ``takeWaiting()``. So batches reach the watchers one at a time, in the order the changes took
/// effect.
@usableFromInline struct AtomState<Value: Sendable>: Sendable {
  /// The waiter of an optimistic update whose commit waits for its turn.
  @usableFromInline typealias Waiter = CheckedContinuation<Void, Never>

  /// The visible value: the confirmed value with the pending optimistic layers applied. `nil`
  /// only once a deallocating atom took it out, to release it without nesting.
  @usableFromInline var stored: Value?
  /// Counts the changes of the visible or the confirmed value, so that a comparison made outside
  /// the lock can tell whether the value it compared is still current.
  @usableFromInline var version: UInt64 = 0
  /// The watches, in registration order.
  @usableFromInline var recipients: [Recipient<Value>] = []
  /// Raised while a tracked read or a stored registration of Observation may wait for the next
  /// change (see ``ReadProbe``); a change that finds it down skips the registrar.
  @usableFromInline let tracked: Flag
  /// Whose turn it is to deliver; the atom holds it too, to end the turn without its lock.
  @usableFromInline let turn: DeliveryTurn
  /// The batches that wait for the deliverer, oldest first.
  @usableFromInline var waiting: [Batch<Value>] = []
  /// The pending optimistic layers, or `nil` when there is none.
  @usableFromInline var layers: Layers<Value, Waiter>?
  var nextLayerID: UInt64 = 0
  /// For the value of a derived atom, the order of its recomputations (see `Derivation`): the
  /// last ticket taken, and the ticket of the recomputation the value comes from.
  @usableFromInline var ticketTaken: UInt64 = 0
  @usableFromInline var ticketShown: UInt64 = 0

  init(_ value: Value, tracked: Flag, turn: DeliveryTurn = DeliveryTurn()) {
    stored = value
    self.tracked = tracked
    self.turn = turn
  }

  /// The visible value.
  @inlinable var value: Value {
    guard let stored else { fatalError("TinyObservation: the value of a released atom was read") }
    return stored
  }

  /// The value without pending optimistic layers.
  var confirmedValue: Value {
    layers?.confirmed ?? value
  }

  /// Applies `body` to a copy of the value and shows the result, marked with `error`; returns the
  /// new value, or `nil` without running `body` while optimistic layers are pending (then the
  /// atom takes the path that handles them, ``update(confirming:error:_:)``). The batch to
  /// deliver goes to `batch`; the replaced value, or the copy a throwing `body` left behind, to
  /// `replaced`.
  @inlinable mutating func update<Failure: Error>(
    error: (any Error)? = nil, _ body: (inout Value) throws(Failure) -> Void,
    _ batch: inout Batch<Value>?, _ replaced: inout Value?
  ) throws(Failure) -> Value? {
    guard layers == nil else { return nil }
    var new = value  // a copy: the old value stays referenced until it is released
    do throws(Failure) {
      try body(&new)
    } catch {
      replaced = new
      throw error
    }
    return show(new, error: error, &batch, &replaced)
  }

  /// Makes `new` the visible value, as ``update(error:_:_:_:)`` with a body that assigns it
  /// does, without the closure (the set goals); returns `false`, changing nothing, while
  /// optimistic layers are pending.
  @inlinable mutating func set(
    _ new: Value, _ batch: inout Batch<Value>?, _ replaced: inout Value?
  ) -> Bool {
    guard layers == nil else { return false }
    _ = show(new, error: nil, &batch, &replaced)
    return true
  }

  /// Makes `new` the visible value and returns it. The change goes to the watchers, and to
  /// Observation when a tracked read or a registration may wait for it: the batch, which carries
  /// the old value, goes to `batch` when the caller is to deliver it now; with nobody to tell,
  /// the old value goes to `replaced`.
  @inlinable mutating func show(
    _ new: Value, error: (any Error)?, _ batch: inout Batch<Value>?, _ replaced: inout Value?
  ) -> Value {
    let old = value
    stored = new
    version &+= 1
    // Lowered before the change is reported: a registration stored after that raises it again.
    let isTracked = tracked.lower()
    guard !recipients.isEmpty || isTracked else {
      replaced = old
      return new
    }
    let change = AtomChange(old: old, new: new, error: error)
    batch = submit(Batch(change, to: recipients, reporting: isTracked))
    return new
  }

  /// Hands `batch` back when the caller is to deliver it now (it took the turn), or queues it
  /// for the thread that is delivering.
  @inlinable mutating func submit(_ batch: Batch<Value>) -> Batch<Value>? {
    guard turn.take() else {
      waiting.append(batch)
      return nil
    }
    return batch
  }

  /// The deliverer, whose turn could not end because changes wait: takes them, to deliver next,
  /// and keeps its turn.
  @inlinable mutating func takeWaiting() -> [Batch<Value>] {
    turn.keep()
    defer { waiting = [] }
    return waiting
  }

  /// Takes out everything that holds user code or user data (the watches, the waiting batches,
  /// the layers, the value), for a deallocating atom to release without nesting.
  mutating func takeAll() -> (
    [Recipient<Value>], [Batch<Value>], Layers<Value, Waiter>?, Value?
  ) {
    defer {
      recipients = []
      waiting = []
      layers = nil
      stored = nil
    }
    return (recipients, waiting, layers, stored)
  }
}

/// One change, the watches it goes to (those registered when it took effect), and whether it is
/// reported to Observation after them.
@usableFromInline struct Batch<Value: Sendable>: Sendable {
  @usableFromInline let change: AtomChange<Value>
  @usableFromInline let recipients: [Recipient<Value>]
  @usableFromInline let isReported: Bool

  @inlinable init(_ change: AtomChange<Value>, to recipients: [Recipient<Value>], reporting: Bool) {
    self.change = change
    self.recipients = recipients
    self.isReported = reporting
  }
}

/// One watch of an atom: the flag its token raises to stop it (which also names it, and which a
/// delivery checks before each call), and what a delivery calls: the handler, or, for a
/// main-queue watch, what hands the change to its relay.
@usableFromInline struct Recipient<Value: Sendable>: Sendable {
  @usableFromInline let flag: Flag
  @usableFromInline let receive: @Sendable (AtomChange<Value>) -> Void
  /// The relay of a main-queue watch.
  let relay: MainRelay<AtomChange<Value>>?

  /// A watch that calls `handler` on the delivering thread.
  init(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) {
    flag = Flag()
    receive = handler
    relay = nil
  }

}

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
