/// Everything an ``Atom`` guards with its lock, and every transition of it. Pure: the atom calls
/// these under its lock, then, after unlocking, does what they return: deliver a batch, resume a
/// waiter, release what a transition took out.
@usableFromInline struct AtomState<Value: Sendable>: Sendable {
  /// The waiter of an optimistic update whose commit waits for its turn.
  @usableFromInline typealias Waiter = CheckedContinuation<Void, Never>

  /// Values a transition took out of the state, for the atom to release after unlocking: their
  /// `deinit`s are user code that may use the atom.
  @usableFromInline struct Released: Sendable {
    /// The visible value a change replaced, or what a throwing body left behind.
    @usableFromInline var value: Value?
    /// The confirmed value an update under optimistic layers replaced.
    @usableFromInline var confirmed: Value?
    /// The values the layers went through on the way to a recomputed visible value.
    @usableFromInline var intermediates: [Value]?
    /// The layers a commit or a rollback settled, with the change they held.
    @usableFromInline var layers: Layers<Value, Waiter>?

    @inlinable init() {}
  }

  /// The visible value: the confirmed value with the pending optimistic layers applied.
  /// Optional only so that a deallocating atom can take it out and release it without nesting.
  @usableFromInline var stored: Value?
  /// Counts the changes of the visible or the confirmed value, so a comparison made outside the
  /// lock can tell whether the value it compared is still current.
  @usableFromInline var version: UInt64 = 0
  /// The watchers, in registration order.
  @usableFromInline var watchers: [Watcher<Value>] = []
  /// What takes part in Apple's `Observation`; made at the first read of the value.
  @usableFromInline var tracking: AtomTracking?
  /// The batches waiting for the thread that is delivering.
  @usableFromInline var delivery = DeliveryQueue<Delivery<Value>>()
  /// The pending optimistic layers, or `nil` when there is none.
  @usableFromInline var layers: Layers<Value, Waiter>?
  private var nextLayerID: UInt64 = 0

  init(_ value: Value) {
    stored = value
  }

  /// The visible value.
  @inlinable var value: Value {
    guard let stored else { fatalError("AtomState: the value of a released atom was read") }
    return stored
  }

  /// The value without pending optimistic layers.
  @inlinable var confirmedValue: Value {
    layers?.confirmed ?? value
  }

  /// Applies `body` to a copy of the confirmed value and shows the result (with the layers, if
  /// any, re-applied on top). Returns the visible value and the batch to deliver, if any; what
  /// the update replaced, or what a throwing `body` left behind, goes to `released`.
  @inlinable mutating func update<Failure: Error>(
    error: (any Error)? = nil, releasing released: inout Released,
    _ body: (inout Value) throws(Failure) -> Void
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    // A copy, so the old value stays referenced until it is released after unlocking.
    var new = confirmedValue
    do throws(Failure) {
      try body(&new)
    } catch {
      released.value = new
      throw error
    }
    guard layers == nil else { return showUnderLayers(new, error: error, releasing: &released) }
    return show(new, error: error, releasing: &released)
  }

  /// Makes `confirmed` the confirmed value and shows it with the layers re-applied on top.
  @usableFromInline mutating func showUnderLayers(
    _ confirmed: Value, error: (any Error)?, releasing released: inout Released
  ) -> (value: Value, batch: Delivery<Value>?) {
    guard var layers else { fatalError("AtomState: no layer pending") }
    self.layers = nil  // keeps `layers` uniquely referenced while it changes
    released.confirmed = layers.setConfirmed(confirmed)
    var intermediates: [Value] = []
    let visible = layers.visible(keeping: &intermediates)
    released.intermediates = intermediates
    self.layers = layers
    return show(visible, error: error, releasing: &released)
  }

  /// Makes `new` the visible value and records the change for the watchers and for Observation,
  /// if either waits for it. The old value travels with the change, or goes to `released`.
  @inlinable mutating func show(
    _ new: Value, error: (any Error)?, releasing released: inout Released
  ) -> (value: Value, batch: Delivery<Value>?) {
    let old = value
    stored = new
    version &+= 1
    let isTracked = tracking?.armed.isRaised ?? false
    guard !watchers.isEmpty || isTracked else {
      released.value = old
      return (new, nil)
    }
    let change = AtomChange(old: old, new: new, error: error)
    let batch = Delivery(change: change, recipients: watchers, tracking: isTracked ? tracking : nil)
    return (new, delivery.submit(batch))
  }

  /// Adds a watcher. With `includingInitial`, its initial change is queued first: a main-queue
  /// watcher's in its relay (the returned action must be performed outside the lock), any
  /// other's as a batch of its own (to deliver outside the lock when one is returned).
  mutating func add(
    _ watcher: Watcher<Value>, includingInitial: Bool, onMainQueue: Bool
  ) -> (batch: Delivery<Value>?, mainAction: RelayState<AtomChange<Value>>.Action?) {
    watchers.append(watcher)
    guard includingInitial else { return (nil, nil) }
    let initial = AtomChange.initial(value)
    if let action = watcher.enqueueInitialOnMain(initial, onMainQueue: onMainQueue) {
      return (nil, action)
    }
    return (delivery.submit(Delivery(change: initial, recipients: [watcher])), nil)
  }

  /// Removes the watcher `id` identifies and returns it, for the caller to release after
  /// unlocking; batches already recorded still hold it, and skip it by its flag. (The list
  /// holds the watcher until it is removed, so its identity cannot have been reused.)
  mutating func remove(_ id: ObjectIdentifier) -> Watcher<Value>? {
    guard let index = watchers.firstIndex(where: { ObjectIdentifier($0) == id }) else {
      return nil
    }
    return watchers.remove(at: index)
  }

  /// Takes out everything that holds user code (the watchers, the batches waiting, the layers,
  /// the registrar whose registrations hold `onChange` handlers, and the value), for a
  /// deallocating atom to release without nesting: a value may hold the next atom of a chain.
  mutating func takeUserCode() -> (
    watchers: [Watcher<Value>], delivery: DeliveryQueue<Delivery<Value>>,
    layers: Layers<Value, Waiter>?, tracking: AtomTracking?, value: Value?
  ) {
    defer { self = AtomState(stored: nil) }
    return (watchers, delivery, layers, tracking, stored)
  }

  private init(stored: Value?) {
    self.stored = stored
  }

  // MARK: Optimistic layers

  /// Adds a layer and shows it. Returns its id, whether its commit may start at once, and the
  /// batch to deliver.
  mutating func addLayer(
    _ apply: @escaping @Sendable (inout Value) -> Void, releasing released: inout Released
  ) -> (id: UInt64, isFirst: Bool, batch: Delivery<Value>?) {
    let id = nextLayerID
    nextLayerID &+= 1
    var layers = self.layers ?? Layers(confirmed: value)
    self.layers = nil
    let isFirst = layers.append(id: id, apply)
    self.layers = layers
    var new = value
    apply(&new)
    return (id, isFirst, show(new, error: nil, releasing: &released).batch)
  }

  /// Parks the waiter of layer `id`; returns `true` (parking nothing) when it is its turn.
  mutating func park(layer id: UInt64, _ waiter: Waiter) -> Bool {
    layers?.park(id: id, waiter) ?? true
  }

  /// The value to commit for layer `id` (its change applied to the confirmed value).
  func valueToCommit(layer id: UInt64) -> (value: Value, version: UInt64) {
    guard let layers else { fatalError("AtomState: layer \(id) committed with no layer pending") }
    return layers.valueToCommit(id: id)
  }

  /// Settles layer `id` as committed: its change moves into the confirmed value, the visible
  /// value stays, and the version moves (a snapshot taken before is stale: the confirmed value
  /// changed). Returns the waiter whose turn it now is.
  mutating func confirm(
    layer id: UInt64, sent: Value, version: UInt64, releasing released: inout Released
  ) -> Waiter? {
    guard var layers else { fatalError("AtomState: layer \(id) confirmed with no layer pending") }
    released.layers = layers  // keeps the settled layer and the old confirmed value referenced
    self.layers = nil
    let next = layers.confirm(id: id, sent: sent, version: version)
    self.version &+= 1
    if !layers.isEmpty { self.layers = layers }
    return next
  }

  /// Settles layer `id` as failed: it is dropped and the visible value recomputed, with a change
  /// carrying `error`. Returns the batch to deliver and the waiter whose turn it now is.
  mutating func rollBack(
    layer id: UInt64, error: any Error, releasing released: inout Released
  ) -> (batch: Delivery<Value>?, next: Waiter?) {
    guard var layers else { fatalError("AtomState: layer \(id) rolled back with no layer pending") }
    released.layers = layers  // keeps the dropped layer referenced
    self.layers = nil
    let next = layers.rollBack(id: id)
    var intermediates: [Value] = []
    let visible = layers.visible(keeping: &intermediates)
    released.intermediates = intermediates
    if !layers.isEmpty { self.layers = layers }
    return (show(visible, error: error, releasing: &released).batch, next)
  }
}

/// The state machine behind serial delivery: the batches waiting, kept under the atom's lock,
/// and whose turn it is to deliver, which the deliverer also reads and ends without the lock.
///
/// A thread that makes a change submits its batch. When nobody is delivering, the submitter
/// becomes the deliverer and gets the batch back to deliver itself; otherwise the batch waits.
/// After each batch the deliverer calls ``DeliveryTurn/finish(_:)``, without the lock: when no batch waits,
/// that ends its turn, so a change that no other change overtakes takes the atom's lock once.
/// When batches wait, it takes them one at a time with ``takeWaiting()``, under the lock. So
/// batches are delivered one at a time, in submission order, by one thread at a time, and never
/// while the lock is held.
@usableFromInline struct DeliveryQueue<Batch> {
  @usableFromInline private(set) var pending = FIFO<Batch>()
  /// Whose turn it is; the atom keeps a reference beside its lock, for ``DeliveryTurn/finish(_:)``.
  @usableFromInline let turn = AtomicOrLocked(DeliveryTurn.idle)

  @inlinable init() {}

  /// Whether some thread is delivering.
  var isDelivering: Bool { turn.load() != DeliveryTurn.idle }

  /// Under the atom's lock: returns `batch` when the caller must deliver it now (it became
  /// the deliverer), or `nil` when it was queued for the thread that is delivering.
  @inlinable mutating func submit(_ batch: consuming Batch) -> Batch? {
    submit(batch, seen: turn.load())
  }

  /// ``submit(_:)``, given the turn it loaded (tests pass one the deliverer has left since).
  @inlinable mutating func submit(_ batch: consuming Batch, seen: UInt8) -> Batch? {
    if seen == DeliveryTurn.waiting
      || (seen == DeliveryTurn.delivering
        && turn.compareExchange(expected: DeliveryTurn.delivering, desired: DeliveryTurn.waiting))
    {
      pending.append(batch)
      return nil
    }
    // Nobody delivers: the turn was idle, or the deliverer finished after the load.
    turn.store(DeliveryTurn.delivering)
    return batch
  }

  /// The deliverer, under the lock, once ``DeliveryTurn/finish(_:)`` found batches waiting: the
  /// first one.
  /// (Should none be there, it ends the turn and returns `nil`.)
  @inlinable mutating func takeWaiting() -> Batch? {
    guard let batch = pending.popFirst() else {
      turn.store(DeliveryTurn.idle)
      return nil
    }
    if pending.isEmpty { turn.store(DeliveryTurn.delivering) }
    return batch
  }
}

extension DeliveryQueue: Sendable where Batch: Sendable {}

/// Whose turn it is to deliver an atom's changes. Only a thread holding the atom's lock leaves
/// ``idle``; the deliverer moves it from ``delivering`` to ``idle`` without the lock.
@usableFromInline enum DeliveryTurn {
  /// Nobody delivers.
  @usableFromInline static var idle: UInt8 { 0 }
  /// A thread delivers, and no batch waits for it.
  @usableFromInline static var delivering: UInt8 { 1 }
  /// A thread delivers, and batches wait for it.
  @usableFromInline static var waiting: UInt8 { 2 }

  /// The deliverer, after each batch, without the lock: ends its turn when no batch waits, and
  /// returns whether it did.
  @inlinable static func finish(_ turn: AtomicOrLocked) -> Bool {
    turn.compareExchange(expected: delivering, desired: idle)
  }
}
