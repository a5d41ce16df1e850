import TinyInternals

/// The context of an object that had none when its ``ContextInfo`` was made: it finds the
/// object's context in the table on each use until there is one, creates it on the first
/// write, and from then on stays with it.
///
/// It holds the object weakly, so a ``ContextInfo`` never keeps its object alive. When the
/// object is gone before a context was found, reads give nothing and the first write makes a
/// context of its own, attached to no object (the object can no longer be asked for it).
final class PendingContext: Sendable {
  private struct State: @unchecked Sendable {
    // @unchecked: the owner is only loaded, under the lock, to look its context up by
    // identity; none of its members is ever used.
    weak var owner: AnyObject?
    var resolved: ContextStorage?
  }

  private let state: Locked<State>
  private let table: ContextTable

  init(owner: AnyObject, table: ContextTable) {
    self.state = Locked(State(owner: owner, resolved: nil))
    self.table = table
  }

  /// The object's context: found in the table, or with `creating`, created; `nil` when there
  /// is none and `creating` is false.
  func storage(creating: Bool) -> ContextStorage? {
    // The owner is loaded under this lock but used and released outside it, and outside the
    // table's lock: releasing what may be the last reference to it runs its `deinit`.
    let (owner, resolved) = state.withLock { state -> (AnyObject?, ContextStorage?) in
      if let resolved = state.resolved { return (nil, resolved) }
      if let owner = state.owner { return (owner, nil) }
      // The object is gone: the first write makes a context attached to nothing, once, in
      // this locked step, so that racing writers all get that one context.
      guard creating else { return (nil, nil) }
      let detached = ContextStorage()
      state.resolved = detached
      return (nil, detached)
    }
    if let resolved { return resolved }
    guard let owner, let found = table.storage(for: owner, creating: creating) else {
      return nil
    }
    // Holding the owner until the context is kept, no racing caller finds it gone meanwhile
    // and makes a context of its own. Racing callers that found it alive found this context.
    return withExtendedLifetime(owner) {
      state.withLock { state in
        if let resolved = state.resolved { return resolved }  // never replaced under the lock
        state.resolved = found
        return found
      }
    }
  }
}
