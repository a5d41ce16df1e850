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
/// goes several times faster, still at O(1) work per operation. Each examined slot shortens
/// the rest of the current pass by one and each insertion lengthens it by one, so every
/// `lookupsPerSweepStep` operations shorten it by at least one. A pass over *n* slots
/// therefore ends within `lookupsPerSweepStep` × *n* operations, and a slot whose owner dies
/// when the table holds *n* slots is reclaimed within `3 × lookupsPerSweepStep × n`
/// operations: the rest of the current pass (at most *n* slots), then one whole pass (at most
/// 2*n* slots, as at most *n* were inserted meanwhile). Every operation does O(1) work for
/// this: at most `2 × reclaimsPerStep` slots.
///
/// **Following up.** A slot removed out of the cursor's order (a reclaimed owner's follow-up,
/// below, or on Apple platforms a slot whose owner turned out to be another object) keeps the
/// slots the current pass has not examined at or after the cursor, so the bound above holds.
/// ``reclaimIfGone(_:leftovers:)`` reclaims one given object's slot at once when its owner is
/// gone: ``ContextTable`` calls it for the objects that a reclaimed context's values held, which
/// makes freeing a chain of owners (each one's context holding the next) one operation per link.
///
/// **Shrinking.** When fewer than a quarter of the positions' capacity is in use, the arrays
/// and the dictionary are rebuilt at twice the count, so a table that once held many owners
/// does not keep their memory (amortized O(1): the rebuild follows at least as many removals).
struct SideTable: Sendable {
  /// One sweep step per this many lookups; insertions take two steps each.
  static let lookupsPerSweepStep = 4
  /// The most dead slots one step reclaims.
  static let reclaimsPerStep = 8
  /// The positions' capacity below which the table never shrinks.
  static let minimumCapacity = 64

  /// How a slot holds its owner. A class, so that the sweep loads the weak reference where it
  /// lies and moving a slot moves a pointer (copying weak and unowned references in a struct
  /// measured a tenth of a lookup).
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
    // A lookup loads at most two owners; two fields hold them without allocating.
    private var first: AnyObject?
    private var second: AnyObject?
    private var more: [AnyObject] = []
    private var reclaimed: [ContextStorage] = []

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

    /// Keeps the context of a reclaimed slot.
    mutating func keepReclaimed(_ context: ContextStorage) {
      reclaimed.append(context)
    }

    /// Releases the owners kept.
    mutating func releaseOwners() {
      first = nil
      second = nil
      more = []
    }

    /// The last reclaimed context kept, if any, without taking it.
    var lastReclaimed: ContextStorage? {
      reclaimed.last
    }

    /// Takes the last reclaimed context kept, if any.
    mutating func takeReclaimed() -> ContextStorage? {
      reclaimed.popLast()
    }
  }

  // The slots, as parallel arrays: a lookup then touches only the identity's position and
  // the context, not the owner's references (copying those measured a third of a lookup).
  private var ids: [ObjectIdentifier] = []
  private var owners: [Owner] = []
  private var storages: [ContextStorage] = []
  private var positions: [ObjectIdentifier: Int] = [:]
  private var cursor = 0
  private var lookupsSinceSweepStep = 0

  /// The number of slots, whether or not their owners are alive.
  var count: Int { ids.count }

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
        if liveOwner(at: position) === owner {
          found = storages[position]
        } else {
          leftovers.keepReclaimed(removeSlot(at: position))
        }
      #else
        found = storages[position]
      #endif
    }
    if found == nil, creating {
      // Sweep first, so that the two steps never spend themselves on the new slot.
      sweep(steps: 2, leftovers: &leftovers)
      let storage = ContextStorage()
      positions[id] = ids.count
      ids.append(id)
      owners.append(Owner(owner))
      storages.append(storage)
      return storage
    }
    lookupsSinceSweepStep += 1
    if lookupsSinceSweepStep == Self.lookupsPerSweepStep {
      lookupsSinceSweepStep = 0
      sweep(steps: 1, leftovers: &leftovers)
    }
    return found
  }

  /// The owner of the slot at `position`, or `nil` when it is gone.
  private func liveOwner(at position: Int) -> AnyObject? {
    owners[position].object
  }

  /// Takes `steps` sweep steps at the cursor, reclaiming the slots whose owner is gone: each
  /// step examines slots until it passes a live one or has reclaimed `reclaimsPerStep`.
  private mutating func sweep(steps: Int, leftovers: inout Leftovers) {
    for _ in 0..<steps {
      for _ in 0..<Self.reclaimsPerStep {
        if ids.isEmpty { break }
        if cursor >= ids.count { cursor = 0 }
        if let owner = liveOwner(at: cursor) {
          leftovers.keep(owner)
          cursor += 1
          break
        }
        leftovers.keepReclaimed(removeSlot(at: cursor))
      }
    }
    shrinkIfSparse()
  }

  /// Reclaims the slot of the object whose identity is `id` if the table has one and its owner
  /// is gone; does nothing otherwise (no slot, or a live owner, kept in `leftovers`).
  mutating func reclaimIfGone(_ id: ObjectIdentifier, leftovers: inout Leftovers) {
    guard let position = positions[id] else { return }
    if let owner = liveOwner(at: position) {
      leftovers.keep(owner)
      return
    }
    leftovers.keepReclaimed(removeSlot(at: position))
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
    let removed = storages[position]
    let last = ids.count - 1
    swapSlots(position, last)
    positions[ids[last]] = nil
    ids.removeLast()
    owners.removeLast()
    storages.removeLast()
    return removed
  }

  /// Swaps two slots and records their new positions.
  private mutating func swapSlots(_ first: Int, _ second: Int) {
    guard first != second else { return }
    ids.swapAt(first, second)
    owners.swapAt(first, second)
    storages.swapAt(first, second)
    positions[ids[first]] = first
    positions[ids[second]] = second
  }

  private mutating func shrinkIfSparse() {
    guard positions.capacity > Self.minimumCapacity, ids.count < positions.capacity / 4
    else { return }
    ids = Self.compacted(ids)
    owners = Self.compacted(owners)
    storages = Self.compacted(storages)
    positions = Dictionary(minimumCapacity: ids.count * 2)
    for (position, id) in ids.enumerated() { positions[id] = position }
  }

  /// A copy of `elements` in a buffer of twice their count.
  private static func compacted<Element>(_ elements: [Element]) -> [Element] {
    var compact: [Element] = []
    compact.reserveCapacity(elements.count * 2)
    compact.append(contentsOf: elements)
    return compact
  }
}
