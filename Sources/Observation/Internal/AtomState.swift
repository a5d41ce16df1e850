import TinyInternals

/// Everything an ``Atom`` guards with its one lock, and every transition of it. Pure, apart from
/// the two flags it shares with the atom (the tracking flag and the delivery turn): the atom
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
