/// Everything an ``Atom`` guards with its lock, and every transition of it. Pure: the atom's
/// methods call these under the lock, then do what they return (deliver a batch, resume a
/// waiter) after unlocking.
///
/// The update and delivery paths are `@inlinable` (with the state they touch
/// `@usableFromInline`) so that a client's `Atom<Int>` runs specialized code: unspecialized,
/// the generic metadata lookups made an update cost 40 times a `Mutex` increment.
@usableFromInline
struct AtomState<Value: Sendable>: Sendable {
  /// The waiter of an optimistic update whose commit waits for its turn.
  @usableFromInline
  typealias Waiter = CheckedContinuation<Void, Never>

  /// The visible value: the confirmed value with the pending optimistic layers applied.
  @usableFromInline var value: Value
  /// The watchers, in registration order.
  @usableFromInline var watchers: [Watcher<Value>] = []
  /// Changes waiting for the thread that is delivering.
  @usableFromInline var delivery = DeliveryQueue<Delivery<Value>>()
  /// The pending optimistic layers, or `nil` when there is none.
  @usableFromInline var layers: Layers<Value, Waiter>?
  private var nextLayerID: UInt64 = 0

  init(_ value: Value) {
    self.value = value
  }

  /// The value without pending optimistic layers.
  var confirmedValue: Value {
    layers?.confirmed ?? value
  }

  /// Applies `body` to the value, or to the confirmed value while layers are pending (the
  /// layers then re-apply on top). `body` returns `false` to leave everything as it was, and
  /// then must not have changed its argument. Returns the visible value and the batch the caller
  /// must deliver, if any.
  @inlinable
  mutating func update<Failure: Error>(
    error: (any Error)? = nil, _ body: (inout Value) throws(Failure) -> Bool
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    if layers != nil {
      return try updateConfirmed(error: error, body)
    }
    if watchers.isEmpty {
      if Failure.self == Never.self {
        _ = try body(&value)  // cannot throw, so it may work in place
      } else {
        var copy = value
        if try body(&copy) { value = copy }
      }
      return (value, nil)
    }
    var new = value
    guard try body(&new) else { return (value, nil) }
    return show(new, error: error)
  }

  /// ``update(error:_:)`` while layers are pending.
  @usableFromInline
  mutating func updateConfirmed<Failure: Error>(
    error: (any Error)?, _ body: (inout Value) throws(Failure) -> Bool
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    guard var layers else { fatalError("AtomState: no layers") }
    var confirmed = layers.confirmed
    guard try body(&confirmed) else { return (value, nil) }
    self.layers = nil  // keeps `layers` uniquely referenced while it changes
    layers.setConfirmed(confirmed)
    self.layers = layers
    return show(layers.visible(), error: error)
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

  /// Removes the watcher `id` identifies and returns it; batches already recorded still hold
  /// it, and skip it by its flag. The watcher cannot have been deallocated (and its identity
  /// reused) before this, because the watcher list holds it until it is removed.
  mutating func remove(_ id: ObjectIdentifier) -> Watcher<Value>? {
    guard let index = watchers.firstIndex(where: { ObjectIdentifier($0) == id }) else {
      return nil
    }
    return watchers.remove(at: index)
  }

  /// The next batch for the deliverer, or `nil` when it is done delivering.
  @inlinable
  mutating func nextBatch() -> Delivery<Value>? {
    delivery.next()
  }

  // MARK: Optimistic layers

  /// Adds a layer and shows it. Returns its id, whether its commit may start at once, and the
  /// batch to deliver.
  mutating func addLayer(
    _ apply: @escaping @Sendable (inout Value) -> Void
  ) -> (id: UInt64, isFirst: Bool, batch: Delivery<Value>?) {
    let id = nextLayerID
    nextLayerID &+= 1
    var layers = self.layers ?? Layers(confirmed: value)
    self.layers = nil
    let isFirst = layers.append(id: id, apply)
    self.layers = layers
    var new = value
    apply(&new)
    return (id, isFirst, show(new, error: nil).batch)
  }

  /// Parks the waiter of layer `id`; returns `true` (parking nothing) when it is its turn.
  mutating func park(layer id: UInt64, _ waiter: Waiter) -> Bool {
    layers?.park(id: id, waiter) ?? true
  }

  /// The value to commit for layer `id` (its change applied to the confirmed value).
  func valueToCommit(layer id: UInt64) -> (value: Value, version: UInt64) {
    layers!.valueToCommit(id: id)
  }

  /// Settles layer `id` as committed; returns the waiter to resume, if any. The visible value
  /// does not change: the layer's effect moves into the confirmed value.
  mutating func confirm(layer id: UInt64, sent: Value, version: UInt64) -> Waiter? {
    var layers = self.layers!
    self.layers = nil
    let next = layers.confirm(id: id, sent: sent, version: version)
    if !layers.isEmpty { self.layers = layers }
    return next
  }

  /// Settles layer `id` as failed: it is dropped and the visible value recomputed, with a
  /// change carrying `error`. Returns the batch to deliver and the waiter to resume.
  mutating func rollBack(
    layer id: UInt64, error: any Error
  ) -> (batch: Delivery<Value>?, next: Waiter?) {
    var layers = self.layers!
    self.layers = nil
    let next = layers.rollBack(id: id)
    let visible = layers.visible()
    if !layers.isEmpty { self.layers = layers }
    return (show(visible, error: error).batch, next)
  }

  /// Makes `new` the visible value and records the change for the watchers, if there are any.
  @inlinable
  mutating func show(
    _ new: Value, error: (any Error)?
  ) -> (value: Value, batch: Delivery<Value>?) {
    let old = value
    value = new
    guard !watchers.isEmpty else { return (new, nil) }
    let change = AtomChange(old: old, new: new, error: error)
    return (new, delivery.submit(Delivery(change: change, recipients: watchers)))
  }
}
