// The ladder of a set through a derived value (the source's value doubled) to one watcher. Rung
// 0 is two floor stages, the first one's closure computing and setting the second. Each rung
// below adds one guarantee that `DerivedAtom` documents:
//
//   1. `.stages`: the set guarantees of rung 3 of the set ladder (stop flags, the change record,
//      serial delivery) on both stages: the source's watch computes from the change and sets
//      the derived stage, whose delivery runs inside the source's.
//   2. `.ordered`: the derived value's ordering. Recomputations are not serialized, so each
//      takes a ticket under the derived value's lock before it reads the source, reads the
//      source under its lock, compares its result with the value shown, outside every lock
//      (`==` is user code), and shows it only if no later ticket was shown first; an equal
//      value delivers nothing.
//   3. `.nonNesting`: the recomputation's change is delivered after the source's delivery
//      returns (rung 4 of the set ladder on both stages). This rung has the guarantees of a set
//      through a `DerivedAtom` with one watcher, and nothing else.
//
// With `AtomicTurn`, rung 3 ends both stages' turns with a compare-and-swap instead of a lock.

/// The rungs of the derived ladder.
enum DerivedRung {
  case stages, ordered, nonNesting
}

/// A source stage and a derived stage whose value is the source's doubled, as `rung` relates
/// them. Set `source` (rungs 1 and 2: `setNested`, rung 3: `set`).
final class DerivedStages<Turn: TurnRule & ~Copyable>: Sendable {
  let source = Stage<Turn>()
  let derived = Stage<Turn>()

  init(_ rung: DerivedRung, _ handler: @escaping @Sendable (Change) -> Void) {
    derived.watch(handler)
    switch rung {
    case .stages:
      source.watch { [derived] change in derived.setNested(change.new &* 2) }
    case .ordered:
      source.watch { [derived, source] change in
        if let batch = derived.recompute(from: source, error: change.error) {
          derived.deliverNested(batch.change, batch.taken)
        }
      }
    case .nonNesting:
      source.watch { [derived, source] change in
        if let batch = derived.recompute(from: source, error: change.error) {
          derived.deliver(batch.change, batch.taken)
        }
      }
    }
  }

  deinit {
    // The source's watch holds the source: drop it, after unlocking.
    let watches = source.state.withLock { state in
      defer { state.core.watches = [] }
      return state.core.watches
    }
    _ = watches
  }
}

extension Stage where Turn: ~Copyable {
  /// The derived value's recomputation from `source`: takes a ticket and the value shown before
  /// it reads the source, compares outside every lock, and shows its result unless a later
  /// ticket was shown first. Returns the batch to deliver now, if any.
  func recompute<Source: TurnRule & ~Copyable>(
    from source: Stage<Source>, error: (any Error)?
  ) -> Batch? {
    var (ticket, seen, shown) = state.withLock { state in
      state.ticketTaken &+= 1
      return (state.ticketTaken, state.ticketShown, state.core.value)
    }
    let new = source.state.withLock { $0.core.value } &* 2
    // Shown unless a later ticket was shown already: then this result is stale.
    while seen < ticket {
      let isUnchanged = shown == new  // the user's `==`: outside every lock
      var taken: Taken?
      let again = state.withLock { state -> (seen: UInt64, shown: Int)? in
        // Another result was shown since `seen`: compare with it.
        guard state.ticketShown == seen else { return (state.ticketShown, state.core.value) }
        state.ticketShown = ticket
        if !isUnchanged { taken = state.show(new, error: error, turn: turn) }
        return nil
      }
      guard let again else {
        return taken.map { Batch(change: Change(old: $0.old, new: new, error: error), taken: $0) }
      }
      (seen, shown) = again
    }
    return nil
  }
}
