// Stand-ins for Docs/Performance.md: TinyObservation's update, set and derived set written by
// hand, with public APIs only, each with a documented guarantee of `Atom` and nothing else. The
// set and the derived set are a ladder (SetLadder.swift, DerivedLadder.swift): each rung is the
// one before plus one guarantee, so that the difference between two rungs, measured in one
// program, is what that guarantee costs.
//
// This file holds the update stand-in and the parts the rungs share: a watch and its stop flag,
// the change record, and the bookkeeping under the lock of a set (the value, the version, the
// check for optimistic layers and for an Observation registration).

import Synchronization

/// A flag read and raised from any thread: a watch's stop flag, which its token raises and
/// every delivery reads, and a stage's Observation flag, raised when a registration waits for
/// the next change.
final class Flag: Sendable {
  let raised = Atomic(false)

  /// Whether the flag is up: one load.
  var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// What a watcher receives: the value before, the value after, and the error slot (the error
/// of a failed optimistic commit whose rollback made the change; `nil` here).
struct Change: Sendable {
  let old: Int
  let new: Int
  let error: (any Error)?
}

/// One watch, as the rungs from the change record up keep it: its stop flag beside its
/// handler, so that a delivery reads the flag, then calls the handler (one call per watch).
struct Watch: Sendable {
  let flag: Flag
  let handler: @Sendable (Change) -> Void
}

/// What a set takes out of the lock to deliver: the old value (the change record's `old`; the
/// caller has `new` and the error), the watches registered when the change took effect (the
/// array, copied under the lock), and whether Observation is told after them.
struct Taken: Sendable {
  let old: Int
  let watches: [Watch]
  let isReported: Bool
}

/// A change, and what was taken out of the lock with it: what waits for a deliverer.
struct Batch: Sendable {
  let change: Change
  let taken: Taken
}

/// Hands `change` to every watch whose flag is down, in order; then tells Observation, if a
/// registration waited.
func send(_ change: Change, _ taken: borrowing Taken) {
  for index in taken.watches.indices where !taken.watches[index].flag.isRaised {
    taken.watches[index].handler(change)
  }
  if taken.isReported { reportToObservation() }
}

/// Where an atom calls its registrar's `withMutation`. No stand-in is tracked by Observation,
/// so reaching it is a mistake of the program.
@inline(never) func reportToObservation() {
  fatalError("no Observation registration in the stand-ins")
}

/// What a set does under the lock from the change record up: the value, the version (which a
/// comparison made outside the lock checks), the check that no optimistic layer is pending
/// (with one, an atom takes another path, which no stand-in takes), and the check for an
/// Observation registration (one flag load).
struct Core {
  var value = 0
  var version: UInt64 = 0
  var layers: [Int]? = nil
  var watches: [Watch] = []
  let tracked = Flag()

  /// Shows `new`; returns what to deliver. (With no watcher and no registration nobody is told,
  /// and the old value is released after unlocking; an `Int` needs nothing.)
  mutating func show(_ new: Int) -> Taken {
    guard layers == nil else { fatalError("no optimistic layers in the stand-ins") }
    let old = value
    value = new
    version &+= 1
    return Taken(old: old, watches: watches, isReported: tracked.isRaised)
  }
}

/// The least an atom's update must do: the lock, a check for optimistic layers, the version, the
/// check for watchers and readers, and the replaced value handed out of the lock.
final class MinimalAtom: Sendable {
  struct State {
    var value: Int? = 0
    var version: UInt64 = 0
    var watches: [Watch] = []
    var isRead = false
    var layers: [Int] = []
  }
  let mutex = Mutex(State())

  @inline(never) func deliver() { fatalError("no watcher here") }

  func update(_ body: (inout Int) -> Void) -> Int {
    var replaced: Int?
    let (new, isWatched) = mutex.withLock { state in
      guard state.layers.isEmpty, var new = state.value else { fatalError("no layers here") }
      body(&new)
      replaced = state.value.take()
      state.value = new
      state.version &+= 1
      return (new, !state.watches.isEmpty || state.isRead)
    }
    if isWatched { deliver() }
    _ = replaced  // released here, after unlocking
    return new
  }
}
