/// The contexts of objects that do not store their own, keyed by object identity: a pure
/// value, kept behind a lock by ``ContextTable``.
///
/// **Identity.** Each slot holds its owner two ways. A `weak` reference tells whether the
/// owner is still alive. An `unowned` reference keeps the owner's memory block allocated —
/// never its contents: its `deinit` runs as usual — until the slot is reclaimed, so no new
/// object can be placed at a dead owner's address while its slot exists, and a lookup by
/// address can only find the slot of the very object asked about. (On Apple platforms an
/// `unowned` reference to an Objective-C object does not keep its memory, so there a lookup
/// also compares the weak reference with the object.)
///
/// **Reclaiming.** A cursor walks the slots, one step every `lookupsPerSweepStep` lookups and
/// two steps on every insertion, and removes the slots whose owner is gone, moving the last
/// slot into the gap (and examining it next). A step examines one slot, and goes on while the
/// slots it examines are dead, up to `reclaimsPerStep` of them, so that a crowd of dead owners
/// goes several times faster, still at O(1) work per operation. A slot whose context a lookup
/// found since the cursor last passed it had a live owner then, and a dead owner cannot be
/// looked up: the step passes it without loading its owner, and the next pass examines it.
/// Each examined slot shortens the rest of the current pass by one and each insertion
/// lengthens it by one, so every `lookupsPerSweepStep` operations shorten it by at least one.
/// A pass over *n* slots therefore ends within `lookupsPerSweepStep` × *n* operations, and a
/// slot whose owner dies when the table holds *n* slots is reclaimed within
/// `3 × lookupsPerSweepStep × n` operations: the rest of the current pass (at most *n* slots),
/// then one whole pass (at most 2*n* slots, as at most *n* were inserted meanwhile). Every
/// operation does O(1) work for this: at most `2 × reclaimsPerStep` slots.
///
/// **Following up.** A slot removed out of the cursor's order (a reclaimed owner's follow-up,
/// below, or on Apple platforms a slot whose owner turned out to be another object) keeps the
/// slots the current pass has not examined at or after the cursor, so the bound above holds.
/// ``reclaimIfGone(_:leftovers:)`` reclaims one given object's slot at once when its owner is
/// gone: ``ContextTable`` calls it for the objects that a reclaimed context's values held, which
/// makes freeing a chain of owners (each one's context holding the next) one operation per link.
///
/// **Shrinking.** When fewer than a quarter of the positions' capacity is in use, the slots
/// and the dictionary are rebuilt at twice the count, so a table that once held many owners
/// does not keep their memory (amortized O(1): the rebuild follows at least as many removals).
struct SideTable: Sendable {
  /// One sweep step per this many lookups; insertions take two steps each.
  static let lookupsPerSweepStep = 4
  /// The most dead slots one step reclaims.
  static let reclaimsPerStep = 8
  /// The positions' capacity below which the table never shrinks.
  static let minimumCapacity = 64

  /// A slot: an owner and its context.
  struct Slot {
    let id: ObjectIdentifier
    let owner: Owner
    let storage: ContextStorage
  }

  /// How a slot holds its owner.
  final class Owner: @unchecked Sendable {
    // @unchecked: only the table's lock holder touches it, and only to ask whether the owner
    // is alive; the owner itself is never used.
    /// Tells whether the owner is alive.
    weak var object: AnyObject?
    /// Keeps the owner's memory block (not the owner) so its address cannot be reused. Never
    /// read.
    unowned let pin: AnyObject

    init(_ owner: AnyObject) {
      self.object = owner
      self.pin = owner
    }
  }

  /// References that an operation hands back to be released after the lock: owners loaded to
  /// test whether they are alive (releasing the last reference to one runs its `deinit`), and
  /// reclaimed contexts (releasing one releases its values).
  struct Leftovers {
    // An operation loads a live owner per sweep step (at most two) and, on Apple platforms,
    // the one it looks up: fields hold them without allocating on the read path.
    private var first: AnyObject?
    private var second: AnyObject?
    private var more: [AnyObject] = []
    /// The contexts of the reclaimed slots.
    var reclaimed: [ContextStorage] = []

    /// Keeps an owner that was loaded to test whether it is alive.
    mutating func keep(_ owner: AnyObject) {
      if first == nil {
        first = owner
      } else if second == nil {
        second = owner
      } else {
        more.append(owner)
      }
    }

    /// Whether anything was kept: most lookups keep nothing, and skip the release.
    var isEmpty: Bool {
      first == nil && reclaimed.isEmpty
    }

    /// Releases the owners kept.
    mutating func releaseOwners() {
      (first, second, more) = (nil, nil, [])
    }
  }

  private var slots: [Slot] = []
  private var positions: [ObjectIdentifier: Int] = [:]
  private var cursor = 0
  private var lookupsSinceSweepStep = 0

  /// The number of slots, whether or not their owners are alive.
  var count: Int { slots.count }

  /// The number of slots the positions have room for before they grow.
  var capacity: Int { positions.capacity }

  /// Finds `owner`'s context, or with `creating`, creates it if there is none; advances the
  /// sweep.
  mutating func storage(
    for owner: AnyObject, creating: Bool, leftovers: inout Leftovers
  ) -> ContextStorage? {
    let id = ObjectIdentifier(owner)
    var found: ContextStorage?
    if let position = positions[id] {
      #if canImport(ObjectiveC)
        if let live = liveOwner(at: position, leftovers: &leftovers), live === owner {
          found = slots[position].storage
        } else {
          leftovers.reclaimed.append(removeSlot(at: position))
        }
      #else
        found = slots[position].storage
      #endif
    }
    found?.wasLookedUp = true
    if found == nil, creating {
      // Sweep first, so that the two steps never spend themselves on the new slot.
      sweep(steps: 2, leftovers: &leftovers)
      let storage = ContextStorage()
      positions[id] = slots.count
      slots.append(Slot(id: id, owner: Owner(owner), storage: storage))
      return storage
    }
    lookupsSinceSweepStep += 1
    if lookupsSinceSweepStep == Self.lookupsPerSweepStep {
      lookupsSinceSweepStep = 0
      sweep(steps: 1, leftovers: &leftovers)
    }
    return found
  }

  /// The owner of the slot at `position`, kept in `leftovers`, or `nil` when it is gone.
  private func liveOwner(at position: Int, leftovers: inout Leftovers) -> AnyObject? {
    guard let owner = slots[position].owner.object else { return nil }
    leftovers.keep(owner)
    return owner
  }

  /// Takes `steps` sweep steps at the cursor, reclaiming the slots whose owner is gone: each
  /// step examines slots until it passes a live one or has reclaimed `reclaimsPerStep`.
  private mutating func sweep(steps: Int, leftovers: inout Leftovers) {
    for _ in 0..<steps {
      for _ in 0..<Self.reclaimsPerStep {
        if slots.isEmpty { break }
        if cursor >= slots.count { cursor = 0 }
        // No weak load for an owner a lookup vouched for (default contextInfo read, 1,000 owners).
        if slots[cursor].storage.wasLookedUp {
          slots[cursor].storage.wasLookedUp = false
          cursor += 1
          break
        }
        if liveOwner(at: cursor, leftovers: &leftovers) != nil {
          cursor += 1
          break
        }
        leftovers.reclaimed.append(removeSlot(at: cursor))
      }
    }
    shrinkIfSparse()
  }

  /// Reclaims the slot of the object whose identity is `id` if the table has one and its owner
  /// is gone; does nothing otherwise (no slot, or a live owner, kept in `leftovers`).
  mutating func reclaimIfGone(_ id: ObjectIdentifier, leftovers: inout Leftovers) {
    guard let position = positions[id], liveOwner(at: position, leftovers: &leftovers) == nil
    else { return }
    leftovers.reclaimed.append(removeSlot(at: position))
    shrinkIfSparse()
  }

  /// Removes the slot at `position`, moving the last slot into its place; returns its context.
  ///
  /// A slot before the cursor (already examined in this pass) first swaps with the last
  /// examined slot, and the cursor steps back onto it: the last slot, not examined yet, then
  /// moves to the cursor, never behind it.
  private mutating func removeSlot(at position: Int) -> ContextStorage {
    var position = position
    if position < cursor {
      cursor -= 1
      swapSlots(position, cursor)
      position = cursor
    }
    swapSlots(position, slots.count - 1)
    let removed = slots.removeLast()
    positions[removed.id] = nil
    return removed.storage
  }

  /// Swaps two slots and records their new positions.
  private mutating func swapSlots(_ first: Int, _ second: Int) {
    guard first != second else { return }
    slots.swapAt(first, second)
    positions[slots[first].id] = first
    positions[slots[second].id] = second
  }

  /// Rebuilds the storage at twice the count when fewer than a quarter of it is in use.
  private mutating func shrinkIfSparse() {
    guard positions.capacity > Self.minimumCapacity, slots.count < positions.capacity / 4
    else { return }
    var compact: [Slot] = []
    compact.reserveCapacity(slots.count * 2)
    compact.append(contentsOf: slots)
    slots = compact
    positions = Dictionary(minimumCapacity: slots.count * 2)
    for (position, slot) in slots.enumerated() { positions[slot.id] = position }
  }
}
