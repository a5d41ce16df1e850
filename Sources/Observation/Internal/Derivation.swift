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
  let tickets = Locked(DerivationTickets())
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
    let ticket = tickets.withLock { $0.take() }
    let new = read()
    while true {
      // With `==`: compare with the value shown now, outside every lock, and remember which
      // recomputation it came from.
      var compared: UInt64?
      var unchanged = false
      if let isSame {
        // The stored value, read without telling Observation: this read is the derived
        // atom's own, not one that a tracking closure made.
        let current = tickets.withLock { tickets -> (shown: UInt64, value: Value)? in
          guard tickets.shown < ticket else { return nil }
          return (tickets.shown, storage.state.withLock { $0.value })
        }
        guard let current else { return }
        unchanged = isSame(current.value, new)
        compared = current.shown
      }
      var batch: Delivery<Value>?
      var replaced = AtomState<Value>.Released()
      let attempt = tickets.withLock { tickets -> DerivationAttempt in
        let attempt = tickets.attemptToShow(ticket, compared: compared)
        guard attempt == .shown, !unchanged else { return attempt }
        batch = storage.state.withLock {
          $0.update(error: error, releasing: &replaced) { $0 = new }.batch
        }
        return attempt
      }
      // `replaced` and the compared value are released here, after unlocking.
      switch attempt {
      case .shown:
        if let batch { storage.deliver(batch) }
        return
      case .superseded:
        return
      case .compareAgain:
        continue
      }
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

/// The tickets of a ``Derivation``'s recomputations: taken in order, and the last one shown.
struct DerivationTickets: Sendable {
  /// The last ticket taken; the value made at creation is ticket 0.
  var taken: UInt64 = 0
  /// The ticket of the recomputation the derived value comes from.
  var shown: UInt64 = 0

  init() {}

  /// Takes the next ticket.
  mutating func take() -> UInt64 {
    taken += 1
    return taken
  }

  /// Decides whether the result of recomputation `ticket` may be shown, and records it when it
  /// may. `compared` is the ticket of the shown value it was compared with, if it was.
  mutating func attemptToShow(_ ticket: UInt64, compared: UInt64?) -> DerivationAttempt {
    if let compared, shown != compared {
      return shown > ticket ? .superseded : .compareAgain
    }
    guard shown < ticket else { return .superseded }
    shown = ticket
    return .shown
  }
}

/// What a recomputation's attempt to show its result came to.
enum DerivationAttempt {
  /// Shown (its change, if any, is to be delivered).
  case shown
  /// A later recomputation was shown first: this result is stale and is dropped.
  case superseded
  /// An earlier recomputation was shown since the comparison: compare again.
  case compareAgain
}
