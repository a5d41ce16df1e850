/// The pure state of optimistic updates: the confirmed value and the pending layers over it.
///
/// Each pending layer is a local change whose commit has not settled. Layers commit one at a
/// time, oldest first: only the first layer's commit runs; the others wait, each with its
/// `Waiter` parked here until its turn. The visible value is the confirmed value with every
/// layer applied in order.
@usableFromInline struct Layers<Value, Waiter> {
  struct Layer {
    let id: UInt64
    let apply: @Sendable (inout Value) -> Void
    var waiter: Waiter?
  }

  /// The value without the pending layers: what the commits so far, and plain updates, made.
  @usableFromInline private(set) var confirmed: Value
  /// Counts changes of `confirmed`, so a commit can tell whether the value it sent is still
  /// current when it succeeds.
  private(set) var version: UInt64 = 0
  private var pending: [Layer] = []

  init(confirmed: Value) {
    self.confirmed = confirmed
  }

  /// Whether no layer is pending.
  var isEmpty: Bool { pending.isEmpty }

  /// The number of pending layers.
  var count: Int { pending.count }

  /// The confirmed value with every pending layer applied, in order.
  ///
  /// Each value a layer after the first starts from is appended to `intermediates`, so that a
  /// later layer replacing it does not release it here: the caller holds the lock, and releases
  /// them after unlocking, because their `deinit`s may use the atom. (The first layer starts
  /// from a copy of ``confirmed``, which keeps it alive.)
  func visible(keeping intermediates: inout [Value]) -> Value {
    var value = confirmed
    for index in pending.indices {
      if index > 0 { intermediates.append(value) }
      pending[index].apply(&value)
    }
    return value
  }

  /// Replaces the confirmed value (a plain update while layers are pending) and returns the
  /// old one, for the caller to release after unlocking.
  mutating func setConfirmed(_ value: Value) -> Value {
    version &+= 1
    var old = value
    swap(&confirmed, &old)
    return old
  }

  /// Adds a layer; returns whether it is first in line, so its commit may start at once.
  mutating func append(id: UInt64, _ apply: @escaping @Sendable (inout Value) -> Void) -> Bool {
    pending.append(Layer(id: id, apply: apply, waiter: nil))
    return pending.count == 1
  }

  /// Parks the waiter of layer `id` until its turn. Returns `true`, parking nothing, when it is
  /// already its turn.
  mutating func park(id: UInt64, _ waiter: Waiter) -> Bool {
    guard let index = pending.firstIndex(where: { $0.id == id }), index > 0 else { return true }
    pending[index].waiter = waiter
    return false
  }

  /// The value to commit for layer `id`, which must be first: its change applied to the
  /// confirmed value. Also returns the confirmed value's version.
  func valueToCommit(id: UInt64) -> (value: Value, version: UInt64) {
    guard pending.first?.id == id else { fatalError("Layers: layer \(id) committed out of turn") }
    var value = confirmed
    pending[0].apply(&value)
    return (value, version)
  }

  /// Settles the first layer, `id`, as committed: the sent value becomes the confirmed value (or,
  /// when the confirmed value changed meanwhile, the layer is applied to it). Returns the waiter
  /// whose turn it now is, if it is parked.
  mutating func confirm(id: UInt64, sent: Value, version sentVersion: UInt64) -> Waiter? {
    let layer = removeFirst(id)
    if sentVersion == version {
      confirmed = sent
    } else {
      layer.apply(&confirmed)
    }
    version &+= 1
    return takeNextWaiter()
  }

  /// Settles the first layer, `id`, as failed: it is dropped. Returns the waiter whose turn it
  /// now is, if it is parked.
  mutating func rollBack(id: UInt64) -> Waiter? {
    _ = removeFirst(id)
    return takeNextWaiter()
  }

  private mutating func removeFirst(_ id: UInt64) -> Layer {
    guard pending.first?.id == id else { fatalError("Layers: layer \(id) settled out of turn") }
    return pending.removeFirst()
  }

  private mutating func takeNextWaiter() -> Waiter? {
    guard !pending.isEmpty else { return nil }
    defer { pending[0].waiter = nil }
    return pending[0].waiter
  }
}

extension Layers: Sendable where Value: Sendable, Waiter: Sendable {}
extension Layers.Layer: Sendable where Value: Sendable, Waiter: Sendable {}
