import TinyInternals

/// Everything an ``Atom`` guards with its one lock, and every transition of it. Pure: the atom
/// runs these under its lock, then, after unlocking, does what they hand back: deliver a batch,
/// resume a waiter, release what a transition replaced (a `deinit` is user code that may use the
/// atom).
///
/// Delivery is serial: a change that finds nobody delivering makes its caller the deliverer and
/// hands it the batch; a change made meanwhile waits in ``waiting``. After each round the
/// deliverer calls ``takeWaiting()``, which hands it what waits, or, when nothing does, ends its
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
  /// The watchers, in registration order.
  @usableFromInline var watchers: [Watcher<Value>] = []
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

  @inlinable init(_ value: Value) {
    stored = value
  }

  /// The visible value.
  @inlinable var value: Value {
    guard let stored else { fatalError("TinyObservation: the value of a released atom was read") }
    return stored
  }

  /// The value without pending optimistic layers.
  @inlinable var confirmedValue: Value {
    layers?.confirmed ?? value
  }

  /// Applies `body` to a copy of the confirmed value and shows the result. When `body` throws,
  /// nothing changes, and the copy it left behind goes to `leftover`, for the caller to release
  /// after unlocking.
  @inlinable mutating func update<Failure: Error>(
    error: (any Error)? = nil, leftover: inout Value?, _ body: (inout Value) throws(Failure) -> Void
  ) throws(Failure) -> Step<Value> {
    var new = confirmedValue  // a copy: the old value stays referenced until it is released
    do throws(Failure) {
      try body(&new)
    } catch {
      leftover = new
      throw error
    }
    guard layers == nil else { return showUnderLayers(confirmed: new, error: error) }
    return show(new, error: error)
  }

  /// Makes `new` the visible value. The change goes to the watchers, and to Observation when the
  /// value was ever read; the old value travels with it, or is handed back to be released.
  @inlinable mutating func show(_ new: Value, error: (any Error)?) -> Step<Value> {
    let old = value
    stored = new
    version &+= 1
    guard !watchers.isEmpty || isRead else { return Step(value: new, replaced: old) }
    let change = AtomChange(old: old, new: new, error: error)
    return Step(value: new, batch: submit(Batch(change, to: watchers, reporting: isRead)))
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

  /// Adds a watcher. With `includingInitial`, its initial change is queued first: a main-queue
  /// watcher's in its relay (perform the returned action outside the lock), any other's as a
  /// batch of its own (deliver it when one is returned).
  mutating func add(
    _ watcher: Watcher<Value>, includingInitial: Bool, onMainQueue: Bool
  ) -> (batch: Batch<Value>?, mainAction: RelayState<AtomChange<Value>>.Action?) {
    watchers.append(watcher)
    guard includingInitial else { return (nil, nil) }
    let initial = AtomChange.initial(value)
    if let action = watcher.relay?.enqueue(initial, onMainQueue: onMainQueue) {
      return (nil, action)
    }
    return (submit(Batch(initial, to: [watcher], reporting: false)), nil)
  }

  /// Removes the watcher `id` names and hands it back, to release after unlocking; batches
  /// already made still hold it, and skip it by its stop flag.
  mutating func remove(_ id: ObjectIdentifier) -> Watcher<Value>? {
    guard let index = watchers.firstIndex(where: { ObjectIdentifier($0) == id }) else {
      return nil
    }
    return watchers.remove(at: index)
  }

  /// Takes out everything that holds user code or user data (the watchers, the waiting batches,
  /// the layers, the value), for a deallocating atom to release without nesting.
  mutating func takeAll() -> (
    watchers: [Watcher<Value>], waiting: [Batch<Value>], layers: Layers<Value, Waiter>?,
    value: Value?
  ) {
    defer {
      watchers = []
      waiting = []
      layers = nil
      stored = nil
    }
    return (watchers, waiting, layers, stored)
  }
}

/// What a transition hands back to the atom: the visible value, the batch to deliver now, and
/// what it replaced, to release after unlocking.
@usableFromInline struct Step<Value: Sendable> {
  @usableFromInline var value: Value
  @usableFromInline var batch: Batch<Value>?
  @usableFromInline var replaced: Value?
  /// More replaced values: those the optimistic layers went through.
  @usableFromInline var alsoReplaced: [Value]?

  @inlinable init(
    value: Value, batch: Batch<Value>? = nil, replaced: Value? = nil, alsoReplaced: [Value]? = nil
  ) {
    self.value = value
    self.batch = batch
    self.replaced = replaced
    self.alsoReplaced = alsoReplaced
  }
}

/// One change and the watchers it goes to (those registered when it took effect), and whether it
/// is to be reported to Observation after them.
@usableFromInline struct Batch<Value: Sendable>: Sendable {
  @usableFromInline let change: AtomChange<Value>
  @usableFromInline let recipients: [Watcher<Value>]
  @usableFromInline let isReported: Bool

  @inlinable init(_ change: AtomChange<Value>, to recipients: [Watcher<Value>], reporting: Bool) {
    self.change = change
    self.recipients = recipients
    self.isReported = reporting
  }
}

/// One watch of an atom: its handler, and the flag its token raises to stop it.
@usableFromInline final class Watcher<Value: Sendable>: Sendable {
  /// Raised by the watch's token; no delivery starts once it is up.
  @usableFromInline let stopped = StopFlag()
  /// Receives the changes: the handler itself, or a hand-over to the main-queue relay.
  @usableFromInline let receive: @Sendable (AtomChange<Value>) -> Void
  /// The relay of a main-queue watcher.
  let relay: MainRelay<AtomChange<Value>>?

  /// A watcher that calls `handler` on the delivering thread.
  init(_ handler: @escaping @Sendable (AtomChange<Value>) -> Void) {
    receive = handler
    relay = nil
  }

  /// A watcher that calls `handler` on the main queue, in delivery order.
  init(onMain handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void) {
    let relay = MainRelay(stopped: stopped, handler: handler)
    receive = { relay.send($0) }
    self.relay = relay
  }

  /// Hands `change` to the handler, unless the watch was stopped.
  @inlinable func deliver(_ change: AtomChange<Value>) {
    guard !stopped.isRaised else { return }
    receive(change)
  }
}
