import TinyInternals

/// Everything an ``Atom`` guards with its one lock, and every transition of it. Pure: the atom
/// runs these under its lock, then, after unlocking, does what they hand back: deliver a batch,
/// resume a waiter, release what a transition replaced (a `deinit` is user code that may use the
/// atom).
///
/// Delivery is serial: a change that finds nobody delivering makes its caller the deliverer and
/// hands it the batch; a change made meanwhile waits in ``waiting``. After each round the
/// deliverer calls ``takeWaiting()``, which hands it what waits or, when nothing does, ends its
/// turn. So batches reach the watchers one at a time, in the order the changes took effect.
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
  /// Whether the value was ever read. Observation can only track an atom through a read, so the
  /// changes of an atom never read skip the registrar.
  @usableFromInline var isRead = false
  /// Whether a thread is delivering.
  @usableFromInline var isDelivering = false
  /// The batches that wait for the deliverer, oldest first.
  @usableFromInline var waiting: [Batch<Value>] = []
  /// The pending optimistic layers, or `nil` when there is none.
  @usableFromInline var layers: Layers<Value, Waiter>?
  var nextLayerID: UInt64 = 0
  /// For the value of a derived atom, the order of its recomputations (see `Derivation`): the
  /// last ticket taken, and the ticket of the recomputation the value comes from.
  @usableFromInline var ticketTaken: UInt64 = 0
  @usableFromInline var ticketShown: UInt64 = 0

  init(_ value: Value) {
    stored = value
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

  /// Makes `new` the visible value and returns it. The change goes to the watchers, and to
  /// Observation when the value was ever read: the batch, which carries the old value, goes to
  /// `batch` when the caller is to deliver it now; with nobody to tell, the old value goes to
  /// `replaced`.
  @inlinable mutating func show(
    _ new: Value, error: (any Error)?, _ batch: inout Batch<Value>?, _ replaced: inout Value?
  ) -> Value {
    let old = value
    stored = new
    version &+= 1
    guard !recipients.isEmpty || isRead else {
      replaced = old
      return new
    }
    let change = AtomChange(old: old, new: new, error: error)
    batch = submit(Batch(change, to: recipients, reporting: isRead))
    return new
  }

  /// Hands `batch` back when the caller is to deliver it now (it became the deliverer), or
  /// queues it for the thread that is delivering.
  @inlinable mutating func submit(_ batch: Batch<Value>) -> Batch<Value>? {
    guard !isDelivering else {
      waiting.append(batch)
      return nil
    }
    isDelivering = true
    return batch
  }

  /// The deliverer, after delivering what it had: what waits (to deliver next), or nothing, and
  /// then its turn is over.
  @inlinable mutating func takeWaiting() -> [Batch<Value>] {
    if waiting.isEmpty { isDelivering = false }
    defer { waiting = [] }
    return waiting
  }

  /// Adds a watch. With `initial`, its initial change is queued first: a main-queue watch's in
  /// its relay (perform the returned action outside the lock), any other's as a batch of its own
  /// (deliver it when one is returned).
  mutating func add(
    _ recipient: Recipient<Value>, includingInitial: Bool, onMainQueue: Bool
  ) -> (batch: Batch<Value>?, mainAction: RelayState<AtomChange<Value>>.Action?) {
    recipients.append(recipient)
    guard includingInitial else { return (nil, nil) }
    let initial = AtomChange.initial(value)
    if let relay = recipient.relay {
      return (nil, relay.enqueue(initial, onMainQueue: onMainQueue))
    }
    return (submit(Batch(initial, to: [recipient], reporting: false)), nil)
  }

  /// Removes the watch `flag` names and hands it back, to release after unlocking; batches
  /// already made still hold it, and skip it by its stop flag.
  mutating func remove(_ flag: StopFlag) -> Recipient<Value>? {
    guard let index = recipients.firstIndex(where: { $0.flag === flag }) else { return nil }
    return recipients.remove(at: index)
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

/// One watch of an atom: the flag its token raises to stop it (which also names it), and what a
/// delivery calls: a closure that checks the flag and calls the handler, or, for a main-queue
/// watch, hands the change to its relay.
@usableFromInline struct Recipient<Value: Sendable>: Sendable {
  let flag: StopFlag
  @usableFromInline let receive: @Sendable (AtomChange<Value>) -> Void
  /// The relay of a main-queue watch.
  let relay: MainRelay<AtomChange<Value>>?

  /// A watch that calls `handler` on the delivering thread.
  init(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) {
    let flag = StopFlag()
    self.flag = flag
    receive = { change in
      guard !flag.isRaised else { return }
      handler(change)
    }
    relay = nil
  }

  /// A watch that calls `handler` on the main queue, in delivery order.
  init(onMain handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void) {
    let flag = StopFlag()
    let relay = MainRelay(stopped: flag, handler: handler)
    self.flag = flag
    receive = { change in
      guard !flag.isRaised else { return }
      relay.send(change)
    }
    self.relay = relay
  }
}

/// What a transition of the optimistic path leaves the atom to do after unlocking: the batch to
/// deliver, and the values it replaced, to release.
struct Outcome<Value: Sendable> {
  var batch: Batch<Value>?
  /// The visible value a change replaced (when no batch carries it as the change's `old`), or
  /// the copy a throwing body left behind.
  var replaced: Value?
  /// What optimistic layers replaced: the old confirmed value, and the values the layers went
  /// through on the way to the new visible value.
  var replacedUnderLayers: [Value]?
}
