// A stand-in for `ContextTable.shared.contextInfo(for: owner)[key]`: the same guarantees, written
// by hand for `Int` values and inlined into the caller, so that it is specialized there. It is
// what the read would cost if nothing but its guarantees cost anything, and its variants each
// drop one guarantee, to show what that one costs:
//
// - identity: each entry holds its owner weakly (to learn that it is gone) and unowned (so that
//   its address cannot be reused while the entry exists);
// - reclaiming: a sweep step every fourth lookup, which passes an entry found by a lookup since
//   its last pass and otherwise loads the owner's weak reference, removing up to eight dead
//   entries; what it loads or removes is released after the table's lock;
// - a view that outlives the lookup: the lookup returns the entry's context, retained, and the
//   read takes that context's own lock (a context is also written through views kept
//   elsewhere);
// - values of any type, read without specializing: each value in a box, which the read retains
//   under the context's lock and reads after it.
//
// Variants (`Variant`): `.complete` has all of them; `.copied` copies the value out under the
// context's lock instead of retaining its box (what a specialized read does); `.withoutSweep`
// never sweeps; `.inEntry` keeps the value in the table's entry and reads it under the table's
// lock (no context of its own, no second lock, no retain). Owners are stored once, before the
// reads; there is no miss path and no write path beyond that.

import Synchronization

/// A value in a box, as a context stores a value whose type it does not know.
public final class IntBox: Sendable {
  @usableFromInline let value: Int
  @inlinable init(_ value: Int) { self.value = value }
}

/// The stand-in's context of one owner: its value, behind its own lock.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class StandInContext: Sendable {
  @usableFromInline let box: Mutex<IntBox?>
  /// Whether a lookup found it since the sweep last passed it; under the table's lock only.
  @usableFromInline nonisolated(unsafe) var wasLookedUp = false

  @inlinable init(_ value: Int) { box = Mutex(IntBox(value)) }

  /// The value: its box retained under the lock, read after it.
  @inlinable public func boxedValue() -> Int? {
    box.withLock { $0 }?.value
  }

  /// The value, copied out under the lock.
  @inlinable public func copiedValue() -> Int? {
    box.withLock { $0?.value }
  }
}

/// A table of stand-in contexts, keyed by owner identity, with the guarantees listed above.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class StandInTable: Sendable {
  /// Which guarantees a table keeps.
  public enum Variant: Sendable { case complete, copied, withoutSweep, inEntry }

  /// How an entry holds its owner.
  @usableFromInline final class Owner: @unchecked Sendable {
    // @unchecked: only read under the table's lock, to learn whether the owner is alive.
    @usableFromInline weak var object: AnyObject?
    @usableFromInline unowned let pin: AnyObject
    @inlinable init(_ owner: AnyObject) { (object, pin) = (owner, owner) }
  }

  @usableFromInline struct Slot {
    @usableFromInline let id: ObjectIdentifier
    @usableFromInline let owner: Owner
    @usableFromInline let context: StandInContext
    @inlinable init(id: ObjectIdentifier, owner: Owner, context: StandInContext) {
      (self.id, self.owner, self.context) = (id, owner, context)
    }
  }

  @usableFromInline struct Entry {
    @usableFromInline var position: Int
    @usableFromInline let context: StandInContext
    @usableFromInline let value: Int
    @inlinable init(position: Int, context: StandInContext, value: Int) {
      (self.position, self.context, self.value) = (position, context, value)
    }
  }

  @usableFromInline struct State: @unchecked Sendable {
    // @unchecked: `Owner` and `StandInContext` are only touched under the table's lock.
    @usableFromInline var entries: [ObjectIdentifier: Entry] = [:]
    @usableFromInline var slots: [Slot] = []
    @usableFromInline var cursor = 0
    @usableFromInline var lookups = 0
    @inlinable init() {}
  }

  /// What a lookup releases after the lock: an owner it loaded, contexts it reclaimed.
  @usableFromInline struct Leftovers {
    @usableFromInline var owner: AnyObject?
    @usableFromInline var reclaimed: [StandInContext] = []
    @inlinable init() {}
  }

  @usableFromInline let state = Mutex(State())
  @usableFromInline let variant: Variant

  // The tables the benchmarks read, one per variant, reached as `ContextTable.shared` is.
  /// Every guarantee, values boxed.
  public static let complete = StandInTable(.complete)
  /// Every guarantee, the value copied out under the context's lock.
  public static let copied = StandInTable(.copied)
  /// As `copied`, without the sweep.
  public static let withoutSweep = StandInTable(.withoutSweep)
  /// As `copied`, the value in the table's entry, without a context of its own.
  public static let inEntry = StandInTable(.inEntry)

  @inlinable init(_ variant: Variant) { self.variant = variant }

  /// Gives `owner` a context holding `value` (once per owner, before any read).
  @inlinable public func store(_ value: Int, for owner: AnyObject) {
    state.withLock { state in
      let id = ObjectIdentifier(owner)
      let context = StandInContext(value)
      state.entries[id] = Entry(position: state.slots.count, context: context, value: value)
      state.slots.append(Slot(id: id, owner: Owner(owner), context: context))
    }
  }

  /// The value of `owner`, the way the table's variant reads it.
  @inlinable public func value(for owner: AnyObject) -> Int? {
    var leftovers: Leftovers?
    let id = ObjectIdentifier(owner)
    if variant == .inEntry {
      return state.withLock { state in
        let entry = state.entries[id]
        entry?.context.wasLookedUp = true
        state.step(&leftovers)
        return entry?.value
      }
    }
    let context = state.withLock { state in
      let context = state.entries[id]?.context
      context?.wasLookedUp = true
      if variant != .withoutSweep { state.step(&leftovers) }
      return context
    }
    _ = consume leftovers
    return variant == .complete ? context?.boxedValue() : context?.copiedValue()
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
extension StandInTable.State {
  /// Counts a lookup and, every fourth one, takes a sweep step.
  @inlinable mutating func step(_ leftovers: inout StandInTable.Leftovers?) {
    lookups += 1
    guard lookups == 4 else { return }
    lookups = 0
    for _ in 0..<8 {
      if slots.isEmpty { return }
      if cursor >= slots.count { cursor = 0 }
      let slot = slots[cursor]
      if slot.context.wasLookedUp {
        slot.context.wasLookedUp = false
        cursor += 1
        return
      }
      if let owner = slot.owner.object {
        if leftovers == nil { leftovers = StandInTable.Leftovers() }
        leftovers!.owner = owner
        cursor += 1
        return
      }
      // Dead: move the last slot into its place, and examine that one next.
      slots.swapAt(cursor, slots.count - 1)
      entries[slots[cursor].id]?.position = cursor
      let removed = slots.removeLast()
      entries[removed.id] = nil
      if leftovers == nil { leftovers = StandInTable.Leftovers() }
      leftovers!.reclaimed.append(removed.context)
    }
  }
}
