import TinyInternals

/// The working part of a ``DerivedAtom``: an atom holding the derived value, the computation,
/// and the watches on the sources. The sources' watches hold it weakly, so it lives exactly as
/// long as its derived atom.
///
/// No lock is held while the computation or the value's `==` runs (both are user code).
/// Instead, each recomputation takes a ticket, in order, before it reads the sources, and its
/// result is shown only if no recomputation with a later ticket was shown already: a later
/// ticket read the sources later, so its result is at least as fresh. The recomputation with
/// the last ticket therefore always gets shown, and it read the sources after their last change.
final class Derivation<Value: Sendable>: Sendable {
  /// Holds the derived value and delivers its changes.
  let storage: Atom<Value>
  /// Reads the sources and computes; it holds the sources.
  // nonisolated(unsafe): written only by `deinit`, when no other reference to the derivation
  // exists, so no recomputation can read it at the same time.
  nonisolated(unsafe) var read: (@Sendable () -> Value)?
  let isSame: (@Sendable (Value, Value) -> Bool)?
  /// The last ticket taken, and the ticket of the recomputation the value comes from (the value
  /// made at creation is ticket 0).
  let tickets = Locked((taken: UInt64(0), shown: UInt64(0)))
  let sourceWatches = Locked<[WatchToken]>([])

  init<each Source: Watchable>(
    _ source: repeat each Source,
    compute: @escaping @Sendable (repeat (each Source).Value) -> Value,
    isSame: (@Sendable (Value, Value) -> Bool)?
  ) {
    let read: @Sendable () -> Value = { compute(repeat (each source).value) }
    self.read = read
    self.isSame = isSame
    storage = Atom(read())
    let onChange: @Sendable ((any Error)?) -> Void = { [weak self] error in
      self?.recompute(error: error)
    }
    var watches: [WatchToken] = []
    repeat watches.append(Self.watch(each source, onChange))
    sourceWatches.withLock { $0 = watches }
    // A source may have changed between the first read and its watch: read once more. Nobody
    // can be watching yet, so this delivers nothing.
    recompute(error: nil)
  }

  /// Watches `source`, calling `recompute` with the error of each of its changes.
  static func watch<Source: Watchable>(
    _ source: Source, _ recompute: @escaping @Sendable ((any Error)?) -> Void
  ) -> WatchToken {
    source.watch { change in recompute(change.error) }
  }

  /// Recomputes the value from the sources' current values, and delivers the change, if any,
  /// marked with `error`.
  func recompute(error: (any Error)?) {
    guard let read else { return }
    let ticket = tickets.withLock { tickets in
      tickets.taken += 1
      return tickets.taken
    }
    let new = read()
    while true {
      // The recomputation shown now, and its value when `==` is to compare with it (read
      // without telling Observation: this read is the derived atom's own). `nil` when a later
      // recomputation was shown: this result is stale.
      let seen = tickets.withLock { tickets -> (shown: UInt64, value: Value?)? in
        guard tickets.shown < ticket else { return nil }
        return (tickets.shown, isSame == nil ? nil : storage.state.withLock { $0.value })
      }
      guard let seen else { return }
      // `==` is user code: it runs outside every lock.
      let unchanged = seen.value.map { isSame?($0, new) ?? false } ?? false
      var outcome = Outcome<Value>()
      let isShown = tickets.withLock { tickets -> Bool in
        // Another result was shown since `seen`: look again.
        guard tickets.shown == seen.shown else { return false }
        tickets.shown = ticket
        guard !unchanged else { return true }
        storage.state.withLock {
          _ = $0.update(confirming: { $0 = new }, error: error, &outcome)
        }
        return true
      }
      // What the change replaced and the compared value are released here, after unlocking.
      guard isShown else { continue }
      if let batch = outcome.batch { storage.deliver(batch) }
      return
    }
  }

  deinit {
    // Cancel the source watches first, then release the sources without nesting: a source may
    // be a derived atom whose derivation holds its own sources, and so on down a chain.
    let watches = sourceWatches.withLock { watches in
      defer { watches = [] }
      return watches
    }
    for watch in watches { watch.cancel() }
    let read = self.read
    self.read = nil
    Trampoline.release(consume read)
  }
}
