/// Everything an ``Atom`` guards with its lock, and every transition of it. Pure: the atom's
/// methods call these under the lock, then do what they return (deliver a batch, resume a
/// waiter, release what was discarded) after unlocking.
///
/// The update and delivery paths are `@inlinable` (with the state they touch
/// `@usableFromInline`) so that a client's `Atom<Int>` runs specialized code: unspecialized,
/// the generic metadata lookups made an update cost 40 times a `Mutex` increment.
struct AtomState<Value: Sendable>: Sendable {
  /// The waiter of an optimistic update whose commit waits for its turn.
  typealias Waiter = CheckedContinuation<Void, Never>

  /// Values a transition took out of the state: the caller releases them after unlocking,
  /// because their `deinit`s are user code that may use the atom.
  struct Discarded: Sendable {
    /// The value an update replaced, or what a throwing body left behind.
    var value: Value?
    /// The confirmed value an update under optimistic layers replaced.
    var confirmed: Value?
    /// The values the pending layers changed on the way to a recomputed visible value (see
    /// ``Layers/visible(keeping:)``); `nil` when none was recomputed.
    var intermediates: [Value]?

    init() {}
  }

  // The fields an update with no watcher touches come first, next to the lock.

  /// Counts the changes of the visible or the confirmed value, so a comparison made outside
  /// the lock can tell whether the value it compared is still current.
  var version: UInt64 = 0
  /// The visible value: the confirmed value with the pending optimistic layers applied.
  var value: Value {
    get { stored.unsafelyUnwrapped }
    _modify { yield &stored! }
  }
  /// Where ``value`` is stored. Optional only so that a deallocating atom can move the value out
  /// (``takeUserCode()``) and release it without nesting; `nil` only after that.
  var stored: Value?
  /// The watchers, in registration order.
  var watchers: [Watcher<Value>] = []
  /// What takes part in Apple's `Observation`, made at the first read of ``value``; `nil` until
  /// then.
  var tracking: AtomTracking?
  /// Changes waiting for the thread that is delivering.
  var delivery = DeliveryQueue<Delivery<Value>>()
  /// The pending optimistic layers, or `nil` when there is none.
  var layers: Layers<Value, Waiter>?
  private var nextLayerID: UInt64 = 0

  init(_ value: Value) {
    stored = value
  }

  /// The value without pending optimistic layers.
  var confirmedValue: Value {
    layers?.confirmed ?? value
  }

  /// Applies `body` to the value, or to the confirmed value while layers are pending (the
  /// layers then re-apply on top). `body` returns `false` to leave everything as it was, and
  /// then must not have changed its argument. Returns the visible value and the batch the caller
  /// must deliver, if any; what the update replaced goes to `discarded`, for the caller to
  /// release after unlocking.
  @inline(__always)
  mutating func update<Failure: Error>(
    error: (any Error)? = nil, discarding discarded: inout Discarded,
    _ body: (inout Value) throws(Failure) -> Bool
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    if _isPOD(Value.self) && Failure.self == Never.self && layers == nil && watchers.isEmpty
      && !isTracked
    {
      // Nothing to release and nothing to undo: the body may work in place. Forced inline, so
      // that an update with no watcher stays a lock, the body and an unlock in the caller.
      if try body(&value) { version &+= 1 }
      return (value, nil)
    }
    if _isPOD(Value.self) {
      // Releasing a plain value runs no code, so what the update replaces may go here, under
      // the lock; the caller's `discarded` is then never written, and costs it nothing.
      var replaced = Discarded()
      return try updateChanging(error: error, discarding: &replaced, body)
    }
    return try updateChanging(error: error, discarding: &discarded, body)
  }

  /// ``update(error:discarding:_:)`` when the change must be recorded or the value copied.
  mutating func updateChanging<Failure: Error>(
    error: (any Error)?, discarding discarded: inout Discarded,
    _ body: (inout Value) throws(Failure) -> Bool
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    if layers != nil {
      return try updateConfirmed(error: error, discarding: &discarded, body)
    }
    // The body works on a copy, so the old value stays referenced until it is released after
    // unlocking (or handed to the watchers); an in-place change of a collection copies it.
    var new = value
    do throws(Failure) {
      guard try body(&new) else { return (value, nil) }
    } catch {
      discarded.value = consume new
      throw error
    }
    return show(consume new, error: error, discarding: &discarded)
  }

  /// ``update(error:discarding:_:)`` while layers are pending.
  mutating func updateConfirmed<Failure: Error>(
    error: (any Error)?, discarding discarded: inout Discarded,
    _ body: (inout Value) throws(Failure) -> Bool
  ) throws(Failure) -> (value: Value, batch: Delivery<Value>?) {
    guard var layers else { fatalError("AtomState: no layers") }
    var confirmed = layers.confirmed
    do throws(Failure) {
      guard try body(&confirmed) else { return (value, nil) }
    } catch {
      discarded.confirmed = consume confirmed
      throw error
    }
    self.layers = nil  // keeps `layers` uniquely referenced while it changes
    discarded.confirmed = layers.setConfirmed(confirmed)
    self.layers = layers
    var intermediates: [Value] = []
    let visible = layers.visible(keeping: &intermediates)
    if !intermediates.isEmpty { discarded.intermediates = intermediates }
    return show(visible, error: error, discarding: &discarded)
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
  /// unlocking; batches already recorded still hold it, and skip it by its flag. The watcher
  /// cannot have been deallocated (and its identity reused) before this, because the watcher
  /// list holds it until it is removed.
  mutating func remove(_ id: ObjectIdentifier) -> Watcher<Value>? {
    guard let index = watchers.firstIndex(where: { ObjectIdentifier($0) == id }) else {
      return nil
    }
    return watchers.remove(at: index)
  }

  /// Takes out everything that holds user code (the watchers, the changes waiting for
  /// delivery, the optimistic layers, the registrar whose registrations hold `onChange`
  /// handlers, and the value), for an atom that is being deallocated to release without
  /// nesting: a value may hold the next atom of a chain, whose value holds the next one.
  mutating func takeUserCode() -> (
    watchers: [Watcher<Value>], pending: FIFO<Delivery<Value>>,
    layers: Layers<Value, Waiter>?, tracking: AtomTracking?, value: Value?
  ) {
    let value = stored.take()
    defer {
      watchers = []
      delivery.pending = FIFO()
      layers = nil
      tracking = nil
    }
    return (watchers, delivery.pending, layers, tracking, value)
  }

  /// Whether a change must be reported to Observation: a tracked read or a registration may be
  /// waiting for it.
  var isTracked: Bool {
    guard let tracking else { return false }
    return tracking.armed.isRaised
  }

  /// The next batch for the deliverer, once ``DeliveryTurn/finish()`` found batches waiting.
  mutating func nextBatch() -> Delivery<Value>? {
    delivery.takeWaiting()
  }

  // MARK: Optimistic layers

  /// The layers before a commit settled, and the layers it left empty (if it did), for the
  /// caller to release after unlocking: they hold the settled layer's change and the confirmed
  /// values it replaced.
  typealias DiscardedLayers = (old: Layers<Value, Waiter>, emptied: Layers<Value, Waiter>?)

  /// Adds a layer and shows it. Returns its id, whether its commit may start at once, and the
  /// batch to deliver; the value it replaced goes to `discarded`.
  mutating func addLayer(
    _ apply: @escaping @Sendable (inout Value) -> Void, discarding discarded: inout Discarded
  ) -> (id: UInt64, isFirst: Bool, batch: Delivery<Value>?) {
    let id = nextLayerID
    nextLayerID &+= 1
    var layers = self.layers ?? Layers(confirmed: value)
    self.layers = nil
    let isFirst = layers.append(id: id, apply)
    self.layers = layers
    var new = value
    apply(&new)
    return (id, isFirst, show(new, error: nil, discarding: &discarded).batch)
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

  /// Settles layer `id` as committed; returns the waiter to resume, if any, and the old layers
  /// (with the settled layer's change and the replaced confirmed value), for the caller to
  /// release after unlocking. The visible value does not change: the layer's effect moves into
  /// the confirmed value.
  mutating func confirm(
    layer id: UInt64, sent: Value, version: UInt64
  ) -> (next: Waiter?, discarded: DiscardedLayers) {
    guard var layers = self.layers else {
      fatalError("AtomState: layer \(id) confirmed with no layer pending")
    }
    let old = layers
    self.layers = nil
    let next = layers.confirm(id: id, sent: sent, version: version)
    self.version &+= 1
    guard layers.isEmpty else {
      self.layers = layers
      return (next, (old, nil))
    }
    return (next, (old, layers))
  }

  /// Settles layer `id` as failed: it is dropped and the visible value recomputed, with a
  /// change carrying `error`. Returns the batch to deliver, the waiter to resume, and the old
  /// layers (with the dropped layer's change), for the caller to release after unlocking; the
  /// value it replaced goes to `discarded`.
  mutating func rollBack(
    layer id: UInt64, error: any Error, discarding discarded: inout Discarded
  ) -> (batch: Delivery<Value>?, next: Waiter?, discarded: DiscardedLayers) {
    guard var layers = self.layers else {
      fatalError("AtomState: layer \(id) rolled back with no layer pending")
    }
    let old = layers
    self.layers = nil
    let next = layers.rollBack(id: id)
    var intermediates: [Value] = []
    let visible = layers.visible(keeping: &intermediates)
    if !intermediates.isEmpty { discarded.intermediates = intermediates }
    let emptied: Layers<Value, Waiter>?
    if layers.isEmpty {
      emptied = layers
    } else {
      self.layers = layers
      emptied = nil
    }
    return (show(visible, error: error, discarding: &discarded).batch, next, (old, emptied))
  }

  /// Makes `new` the visible value and records the change for the watchers and for
  /// Observation, if either waits for it; otherwise the old value goes to `discarded`.
  mutating func show(
    _ new: consuming Value, error: (any Error)?, discarding discarded: inout Discarded
  ) -> (value: Value, batch: Delivery<Value>?) {
    // Returned and delivered from this copy, not read back from the state: reading it back
    // through the optional storage cost a retain and a release more per change (a fifth of a
    // set delivered to one watcher).
    let shown = copy new
    let old = value
    value = new
    version &+= 1
    let tracked = isTracked
    guard !watchers.isEmpty || tracked else {
      discarded.value = consume old
      return (shown, nil)
    }
    let change = AtomChange(old: consume old, new: shown, error: error)
    let reported = tracked ? tracking.map { Unmanaged.passUnretained($0) } : nil
    let batch = Delivery(change: change, recipients: watchers, tracking: reported)
    return (shown, delivery.submit(batch))
  }
}
