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
/// a few) at amortized O(1) cost per request.
public final class AtomStore<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private struct Entry: Sendable {
    weak var atom: Atom<Value>?
  }

  private struct Table: Sendable {
    var entries: [Key: Entry] = [:]
    /// The table's size that triggers the next sweep.
    var sweepAt = 16

    func live(for key: Key) -> Atom<Value>? {
      entries[key]?.atom
    }

    mutating func insert(_ atom: Atom<Value>, for key: Key) {
      entries[key] = Entry(atom: atom)
      if entries.count >= sweepAt {
        entries = entries.filter { $0.value.atom != nil }
        sweepAt = max(16, entries.count * 2)
      }
    }
  }

  private let table = Locked(Table())
  private let makeValue: @Sendable (Key) -> Value

  /// Creates a store that makes the initial value for a key with `makeValue`.
  ///
  /// - Parameter makeValue: Returns the initial value of a key's atom. It runs outside the
  ///   store's lock, so it may use the store; when two threads ask for a missing key at once it
  ///   may run for both, and the first atom stored wins.
  public init(_ makeValue: @escaping @Sendable (Key) -> Value) {
    self.makeValue = makeValue
  }

  /// Returns the atom for `key`: the one already handed out if anyone still holds it, otherwise
  /// a new atom holding `makeValue(key)`.
  ///
  /// ```swift
  /// store.atom(for: 42) === store.atom(for: 42)    // true while either is held
  /// ```
  ///
  /// - Parameter key: The key.
  /// - Returns: The shared atom for `key`.
  /// - Complexity: Amortized O(1).
  public func atom(for key: Key) -> Atom<Value> {
    if let atom = table.withLock({ $0.live(for: key) }) {
      return atom
    }
    let made = Atom(makeValue(key))
    return table.withLock { table in
      if let atom = table.live(for: key) { return atom }
      table.insert(made, for: key)
      return made
    }
  }

  /// The number of entries in the table, live or not yet swept, for tests.
  var entryCount: Int {
    table.withLock { $0.entries.count }
  }
}
