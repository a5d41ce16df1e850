import TinyInternals

/// Hands out one shared ``Atom`` per key, for as long as anyone holds it.
///
/// Every caller that asks for the same key while the atom is held somewhere gets that very atom,
/// so every screen showing document 42 watches, and optimistically updates, the same value. The
/// store holds its atoms weakly: once nobody holds an atom, the next request for its key makes a
/// fresh one with `makeValue`.
///
/// ```swift
/// let store = AtomStore<Int, Doc> { id in Doc(id: id) }
/// let a = store.atom(for: 42)
/// let b = store.atom(for: 42)      // a === b
/// ```
///
/// Entries whose atom is gone are swept out during later requests, whenever the table has
/// doubled since the last sweep, so the table stays within twice the number of live atoms (plus
/// a few) at amortized O(1) cost per request. No user code runs under the store's lock: the
/// key's `hash(into:)` and `==`, `makeValue`, and the release of keys and atoms all happen
/// outside it. Neither runs the release of the store itself: a key or `makeValue` holding another
/// store, which holds another, is released one store after another, not nested.
public final class AtomStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private struct Entry: Sendable {
    let key: Key
    weak var atom: Atom<Value>?
  }

  /// What a change of the table took out of it, for the caller to release after unlocking:
  /// keys are user values, and the last reference to an atom releases the atom's value.
  private struct Released: Sendable {
    var bucket: [Entry] = []
    var buckets: [Int: [Entry]] = [:]
    var atoms: [Atom<Value>] = []
  }

  private struct Table: Sendable {
    /// The entries, by the hash value of their keys.
    var buckets: [Int: [Entry]] = [:]
    /// The number of entries, live or not yet swept.
    var count = 0
    /// Counts the changes of the table: a lookup made outside the lock inserts only if the
    /// table still has the stamp it read.
    var stamp: UInt64 = 0
    /// The number of entries that triggers the next sweep.
    var sweepAt = 16

    /// Stores `entry` under `hash`, in place of the entry at `index` when one is given, then
    /// sweeps when the table has doubled since the last sweep.
    mutating func insert(_ entry: Entry, hash: Int, replacing index: Int?) -> Released {
      stamp &+= 1
      var bucket = buckets[hash] ?? []
      var released = Released(bucket: bucket)  // holds the replaced entry's key
      if let index {
        bucket[index] = entry
      } else {
        bucket.append(entry)
        count += 1
      }
      buckets[hash] = bucket
      if count >= sweepAt { sweep(into: &released) }
      return released
    }

    /// Drops the entries whose atom is gone.
    private mutating func sweep(into released: inout Released) {
      released.buckets = buckets
      buckets = buckets.compactMapValues { bucket in
        // Each live atom is held until after unlocking: the store's reference may be the last
        // one by the time it is released, and its release runs the value's `deinit`.
        let live = bucket.filter { entry in
          guard let atom = entry.atom else { return false }
          released.atoms.append(atom)
          return true
        }
        return live.isEmpty ? nil : live
      }
      count = released.atoms.count
      sweepAt = max(16, count * 2)
    }
  }

  private let table = Locked(Table())
  // nonisolated(unsafe): written only by `deinit`, when no other reference to the store exists,
  // so no request can read it at the same time.
  private nonisolated(unsafe) var makeValue: (@Sendable (Key) -> Value)?

  /// Creates a store that makes the initial value for a key with `makeValue`.
  ///
  /// - Parameter makeValue: Returns the initial value of a key's atom. It runs outside the
  ///   store's lock, so it may use the store; when several threads ask for a missing key at
  ///   once it may run for each of them, and they all get the atom stored first.
  public init(_ makeValue: @escaping @Sendable (Key) -> Value) {
    self.makeValue = makeValue
  }

  /// Returns the atom for `key`: the one already handed out if anyone still holds it, otherwise
  /// a new atom holding `makeValue(key)`.
  ///
  /// The key's `hash(into:)` and `==`, like `makeValue`, run outside the store's lock, so they
  /// may use the store; `==` runs again when the store changed while it ran. Keys are compared
  /// with `==` only: distinct keys never share an atom, even when their hash values collide.
  ///
  /// ```swift
  /// store.atom(for: 42) === store.atom(for: 42)    // true while either is held
  /// ```
  ///
  /// - Parameter key: The key.
  /// - Returns: The shared atom for `key`.
  /// - Complexity: Amortized O(1) with a good hash.
  public func atom(for key: Key) -> Atom<Value> {
    let hash = key.hashValue
    var made: Atom<Value>?
    while true {
      let (bucket, stamp) = table.withLock { ($0.buckets[hash] ?? [], $0.stamp) }
      // `==` is user code: compare outside the lock, then insert only if the table did not
      // change meanwhile. An entry whose atom is gone gets the new one.
      let index = bucket.firstIndex { $0.key == key }
      if let index, let atom = bucket[index].atom { return atom }
      let atom = made ?? Atom(makeValue!(key))
      made = atom
      let released = table.withLock { table -> Released? in
        guard table.stamp == stamp else { return nil }
        return table.insert(Entry(key: key, atom: atom), hash: hash, replacing: index)
      }
      if released != nil { return atom }  // what it took out is released here, after unlocking
    }
  }

  /// The number of entries in the table, live or not yet swept, counted one by one, for tests.
  var entryCount: Int {
    table.withLock { $0.buckets.values.reduce(0) { $0 + $1.count } }
  }

  deinit {
    // The keys and `makeValue` are user values that may hold another store, whose keys and
    // `makeValue` hold another, and so on: release them without nesting.
    var table = Table()
    self.table.withLock { swap(&table, &$0) }
    Trampoline.release((consume table, makeValue.take()))
  }
}
