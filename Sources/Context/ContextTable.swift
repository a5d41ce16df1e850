import Foundation
import TinyInternals

/// Contexts for any objects, kept beside them in a table that holds each object weakly.
///
/// This is how objects carry a context on Linux, where no hook runs when an object is
/// deallocated: the default ``ContextCarrying/contextInfo`` there is
/// `ContextTable.shared.contextInfo(for: self)`. On Apple platforms the default uses the
/// runtime's associated objects instead, and a table is only used when you make one. A table
/// of your own is a weak-keyed map with typed values: its contexts are separate from the
/// objects' ``ContextCarrying/contextInfo`` and end with the table.
///
/// ```swift
/// let drafts = ContextTable()
/// drafts.contextInfo(for: document)[textKey] = "Dear Ada,"
/// drafts.contextInfo(for: document)[textKey]   // Optional("Dear Ada,")
/// document.contextInfo[textKey]                // nil: another table
/// ```
///
/// **Lifetime.** An entry never outlives its meaning: a context is only ever returned for the
/// object it was created for, never for a new object that takes a dead one's address. Reading
/// an object that has no context creates no entry; the first write does. Entries whose object
/// is gone are reclaimed as the table is used: each lookup advances a sweep, so an entry whose
/// object dies while the table holds *n* entries is reclaimed within 12 *n* further lookups
/// or insertions (each one does O(1) work for it: a sweep step passes over consecutive dead
/// entries, up to 8, so many dead entries go faster than one by one). Reclaiming an entry
/// releases its values, unless a ``ContextInfo`` you kept still refers to them; then every
/// value that is itself an object (a typed or a named value whose type is a class) is looked up
/// in the table, and its entry is reclaimed at once if that release freed it. So a chain of
/// objects, each one's context holding the next, is freed with its first entry, one table step
/// per link, on the thread whose lookup reclaimed that entry. (An object inside another value
/// — a struct's field, an array, an optional — is not followed; its entry waits for the
/// sweep, within the same bound.) Until then the
/// entry also keeps the dead object's memory block allocated (its `deinit` has run; what it
/// referenced is already released), which is what rules out address reuse. A table shrinks its
/// storage when most of its entries are gone.
///
/// **Cost.** Objects in a table must support weak references (every Swift object does, and
/// nearly every Objective-C one). On Linux, an object that has been weakly referenced keeps a
/// side allocation for its reference counts from then on.
///
/// The table is thread-safe; its lock is never held while values are released.
public final class ContextTable: Sendable {
  /// The table behind the default ``ContextCarrying/contextInfo`` on platforms without the
  /// Objective-C runtime (Linux).
  ///
  /// On Apple platforms the default `contextInfo` uses associated objects, and this table
  /// only holds what you put in it explicitly.
  ///
  /// ```swift
  /// // On Linux:
  /// ContextTable.shared.contextInfo(for: row)[expandedKey] = true
  /// row.contextInfo[expandedKey]   // true: the same context
  /// ```
  public static let shared = ContextTable()

  private let table = Locked(SideTable())

  /// Creates an empty table.
  ///
  /// ```swift
  /// let drafts = ContextTable()
  /// drafts.count   // 0
  /// ```
  public init() {}

  /// Returns `owner`'s context in this table.
  ///
  /// Creates nothing by itself: if `owner` has no context yet, the returned ``ContextInfo``
  /// reads as empty and creates the context on its first write. It holds `owner` weakly; see
  /// ``ContextInfo`` for what a kept one does after its object is gone.
  ///
  /// ```swift
  /// let table = ContextTable()
  /// table.contextInfo(for: row)[expandedKey]          // false, the key's default
  /// table.count                                       // 0: reading created nothing
  /// table.contextInfo(for: row)[expandedKey] = true
  /// table.count                                       // 1
  /// ```
  ///
  /// - Parameter owner: The object whose context you want.
  /// - Returns: A view of `owner`'s context in this table.
  /// - Complexity: O(1) expected.
  public func contextInfo(for owner: AnyObject) -> ContextInfo {
    if let storage = storage(for: owner, creating: false) {
      return ContextInfo(storage: storage)
    }
    return ContextInfo(pending: PendingContext(owner: owner, table: self))
  }

  /// Returns whether `owner` has a context in this table.
  ///
  /// An object has a context from the first write to it until the table reclaims it after
  /// the object is gone; removing every value leaves an empty context in place.
  ///
  /// ```swift
  /// table.hasContext(for: row)                   // false
  /// table.contextInfo(for: row)[expandedKey]     // reading creates nothing
  /// table.hasContext(for: row)                   // false
  /// table.contextInfo(for: row)[expandedKey] = true
  /// table.hasContext(for: row)                   // true
  /// ```
  ///
  /// - Parameter owner: The object to look up.
  /// - Returns: `true` when the table holds a context for `owner`.
  /// - Complexity: O(1) expected.
  public func hasContext(for owner: AnyObject) -> Bool {
    storage(for: owner, creating: false) != nil
  }

  /// The number of entries, including those whose object is gone but that are not reclaimed
  /// yet.
  ///
  /// ```swift
  /// ContextTable().count   // 0
  /// ```
  public var count: Int {
    table.withLock { $0.count }
  }

  /// The number of entries the table has room for before its storage grows; it shrinks again
  /// when fewer than a quarter of it is in use.
  ///
  /// ```swift
  /// ContextTable().capacity   // 0
  /// ```
  public var capacity: Int {
    table.withLock { $0.capacity }
  }

  /// Finds `owner`'s context, or with `creating`, creates it when there is none.
  func storage(for owner: AnyObject, creating: Bool) -> ContextStorage? {
    var leftovers = SideTable.Leftovers()
    let storage = table.withLock {
      $0.storage(for: owner, creating: creating, leftovers: &leftovers)
    }
    if !leftovers.isEmpty { release(&leftovers) }
    return storage
  }

  /// Releases what an operation handed back, after the lock: the owners it loaded (at once, so
  /// that no live object is held a moment longer than its lookup), then the contexts it
  /// reclaimed, each followed up (see ``followUp(_:held:)``).
  private func release(_ leftovers: inout SideTable.Leftovers) {
    leftovers.releaseOwners()
    while let reclaimed = leftovers.reclaimed.popLast() {
      let held = reclaimed.objectIdentities()
      // Without objects among its values, it is released here (its values on the trampoline).
      if !held.isEmpty { followUp(consume reclaimed, held: held) }
    }
  }

  /// Releases a reclaimed context whose values are the objects `held`, then reclaims at once
  /// the slots of those objects that this release freed.
  ///
  /// Such an object may have lived only through the context (a chain of owners, each one's
  /// context holding the next): without this, its slot would wait for the sweep to come round
  /// again, so freeing a chain of *n* owners would take about *n*² / 2 operations. Both steps
  /// run on the trampoline, the release first (its values after it, as the context's `deinit`
  /// queues them), so a chain is freed as a loop, one slot per step, on the calling thread.
  private func followUp(_ reclaimed: consuming ContextStorage, held: [ObjectIdentifier]) {
    var context: ContextStorage? = consume reclaimed
    Trampoline.run {
      _ = context.take()  // its values are queued after this, by its deinit
      Trampoline.enqueue { [self] in
        var leftovers = SideTable.Leftovers()
        table.withLock { table in
          for object in held { table.reclaimIfGone(object, leftovers: &leftovers) }
        }
        release(&leftovers)
      }
    }
  }
}
