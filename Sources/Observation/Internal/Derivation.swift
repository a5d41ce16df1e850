import TinyInternals

/// The working part of a ``DerivedAtom``: an atom holding the derived value, and the
/// computation. The sources' watches hold it, until its derived atom cancels them as it goes.
///
/// No lock is held while the computation or the value's `==` runs (both are user code).
/// Instead, each recomputation takes a ticket, in order, before it reads the sources (the
/// tickets are kept with the derived value, under its lock), and its result is shown only if no
/// recomputation with a later ticket was shown already: a later
/// ticket read the sources later, so its result is at least as fresh. The recomputation with
/// the last ticket therefore always gets shown, and it read the sources after their last change.
@usableFromInline final class Derivation<Value: Sendable>: Sendable {
  /// Holds the derived value and delivers its changes.
  @usableFromInline let storage: Atom<Value>
  /// Reads the sources and computes; it holds the sources.
  // nonisolated(unsafe): written only by `deinit`, when no other reference to the derivation
  // exists, so no recomputation can read it at the same time.
  @usableFromInline nonisolated(unsafe) var read: (@Sendable () -> Value)?
  @usableFromInline let isSame: (@Sendable (Value, Value) -> Bool)?

  /// A derivation whose value `read` computes, compared with `isSame` when it is given.
  @inlinable  // with the recomputation: the derived goal needs code specialized for the sources
  init(read: @escaping @Sendable () -> Value, isSame: (@Sendable (Value, Value) -> Bool)?) {
    self.read = read
    self.isSame = isSame
    storage = Atom(read())
  }

  /// Reads `source`'s value for a recomputation. An atom's, or a derived atom's, is read without
  /// telling Observation: the recomputation is the derived atom's own business, and Observation
  /// tracks the derived atom itself. So a recomputation pays no `access` call per source, and
  /// one that runs inside someone else's tracking closure does not make it track the sources.
  @inlinable static func reader<Source: Watchable>(
    of source: Source
  ) -> @Sendable () -> Source.Value {
    if let atom = source as? Atom<Source.Value> {
      return { atom.untrackedValue }
    }
    if let derived = source as? DerivedAtom<Source.Value> {
      return { derived.derivation.storage.untrackedValue }
    }
    return { source.value }
  }

  /// A recomputation shown: its ticket, and its value when `==` is to compare with it.
  @usableFromInline typealias Shown = (ticket: UInt64, value: Value?)

  /// Recomputes the value from the sources' current values, and delivers the change, if any,
  /// marked with `error`.
  @inlinable func recompute(error: (any Error)?) {
    guard let read else { return }
    // Before the sources are read: a ticket, and the recomputation shown now.
    var (ticket, seen) = storage.state.withLock { state -> (UInt64, Shown) in
      state.ticketTaken += 1
      return (state.ticketTaken, (state.ticketShown, isSame == nil ? nil : state.value))
    }
    let new = read()
    // Shown unless a later recomputation was shown already: then this result is stale.
    while seen.ticket < ticket {
      // `==` is user code: it runs outside every lock.
      let unchanged = seen.value.map { isSame?($0, new) ?? false } ?? false
      var batch: Batch<Value>?
      var replaced: Value?
      let changed = storage.state.withLock { state -> Shown? in
        // Another result was shown since `seen`: look again.
        guard state.ticketShown == seen.ticket else {
          return (state.ticketShown, isSame == nil ? nil : state.value)
        }
        state.ticketShown = ticket
        if !unchanged { _ = state.update(error: error, { $0 = new }, &batch, &replaced) }
        return nil
      }
      // What the change replaced, and the compared value, are released here, after unlocking.
      guard let changed else {
        if let batch = consume batch { storage.deliver(batch) }
        return
      }
      seen = changed
    }
  }

  deinit {
    // Release the sources without nesting: a source may be a derived atom whose derivation
    // holds its own sources, and so on down a chain.
    let read = self.read
    self.read = nil
    Trampoline.release(consume read)
  }
}

extension Atom {
  /// The value, read without telling Observation, for a derived atom's recomputation.
  @inlinable var untrackedValue: Value {
    state.withLock { $0.value }
  }
}
