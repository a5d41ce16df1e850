// TinyContext reads and writes as users reach them. The goal rows read owners in a fixed shuffled
// order, at 1,000 and at 100,000 owners: `owner.contextInfo[key]` on a class that holds its
// context (`let contextInfo = ContextInfo()`), `ContextTable.shared.contextInfo(for: owner)[key]`,
// and the default `owner.contextInfo[key]` of a `ContextCarrying` class (on Linux, the shared
// table itself). Each is paired with its floor: one `Mutex` around a dictionary keyed by the same
// owners' identities, read in the same order (`MutexDictionary` and `Walk`, in ContextFloor).
// Beside them, stand-ins for the shared table's read (`StandInTable`, in ContextFloor): its
// guarantees written by hand and specialized for `Int`, complete and each without one of them,
// against the same floor, to show what each guarantee costs. The other rows are paired with a
// plain lock-protected dictionary that does the same lookup without any lifetime management:
// the dictionary in the owner for owner-held contexts, a global one keyed by object identity
// for the side table. One benchmark iteration is one read or write; each sample runs 1,000 of
// them (`scalingFactor: .kilo`), so the times below are per operation. Each group's data is a
// lazily initialized global, so a benchmark process builds only the data of the group it
// measures (and the shared table holds only its owners). Every body takes its data once, as
// its floor's does, so the two pay the same to reach it. `Mutex` needs macOS 15 on Apple
// platforms; this suite is run on Linux.

import Benchmark
import BenchmarkSupport
import ContextFloor
import Foundation
import TinyContext

final class Owner: ContextCarrying {}

/// An owner that keeps its context in a stored property.
final class OwnerHeld: ContextCarrying {
  let contextInfo = ContextInfo()
}

/// The baseline for owner-held reads: a dictionary behind a lock, in the owner.
final class PlainOwner {
  private let lock = NSLock()
  private var values: [ObjectIdentifier: Int] = [:]

  @inline(never)
  func value(for key: AnyObject) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    return values[ObjectIdentifier(key)]
  }

  @inline(never)
  func setValue(_ value: Int, for key: AnyObject) {
    lock.lock()
    values[ObjectIdentifier(key)] = value
    lock.unlock()
  }
}

/// The baseline for side-table reads: one dictionary of per-object dictionaries, keyed by
/// object identity, behind a lock. It never learns that an object is gone.
final class PlainSideTable {
  private let lock = NSLock()
  private var contexts: [ObjectIdentifier: [ObjectIdentifier: Int]] = [:]

  @inline(never)
  func value(for key: AnyObject, of owner: AnyObject) -> Int? {
    lock.lock()
    defer { lock.unlock() }
    return contexts[ObjectIdentifier(owner)]?[ObjectIdentifier(key)]
  }

  @inline(never)
  func setValue(_ value: Int, for key: AnyObject, of owner: AnyObject) {
    lock.lock()
    contexts[ObjectIdentifier(owner), default: [:]][ObjectIdentifier(key)] = value
    lock.unlock()
  }
}

let key = ContextKey<Int>("value")

/// Owners that carry the default context, each given its index in it and in a private table,
/// and the plain side table holding the same; a walk over them, in one shuffled order, for each
/// variant.
final class SideTableData {
  let table = ContextTable()
  let plain = PlainSideTable()
  let forPlain: Walk<Owner>
  let forTable: Walk<Owner>
  let forDefault: Walk<Owner>

  init(owners count: Int, stored: Bool) {
    let owners = shuffled((0..<count).map { _ in Owner() })
    if stored {
      for (index, owner) in owners.enumerated() {
        owner.contextInfo[key] = index
        table.contextInfo(for: owner)[key] = index
        plain.setValue(index, for: key, of: owner)
      }
    }
    (forPlain, forTable, forDefault) = (Walk(owners), Walk(owners), Walk(owners))
  }
}

// The data below is global, so that a process builds only what it measures, and
// `nonisolated(unsafe)`: benchmark bodies run on one thread.
nonisolated(unsafe) let oneOwner = SideTableData(owners: 1, stored: true)
nonisolated(unsafe) let thousandOwnersWithoutContext = SideTableData(owners: 1_000, stored: false)

/// Registers the side-table read benchmarks of `data` (a global, built when a variant first
/// reads it); without `stored`, the owners never stored anything (the miss path, which creates
/// nothing).
func sideTableReads(
  owners count: Int, stored: Bool = true, _ data: @escaping @autoclosure () -> SideTableData
) {
  compare(
    "side-table read, \(stored ? "" : "no context, ")\(count.formatted()) owners",
    baseline: Variant("plain lock-protected dictionary") {
      let data = data()
      blackHole(data.forPlain.next { data.plain.value(for: key, of: $0) })
    },
    Variant("TinyContext default contextInfo") {
      let data = data()
      blackHole(data.forDefault.next { $0.contextInfo[key] })
    },
    Variant("TinyContext ContextTable") {
      let data = data()
      blackHole(data.forTable.next { data.table.contextInfo(for: $0)[key] })
    }
  )
}

/// Stops the suite unless `read` gives every owner its index: a benchmark of a wrong answer
/// would measure nothing.
func check<Owner: AnyObject>(_ owners: [Owner], _ name: String, _ read: (Owner) -> Int?) {
  for (index, owner) in owners.enumerated() where read(owner) != index {
    fatalError("\(name) reads \(String(describing: read(owner))) for owner \(index)")
  }
}

/// The data of the goals' reads at one size: owners that hold their context and owners that
/// carry the default one (in `ContextTable.shared` on Linux), each given its index, in a fixed
/// shuffled order; the floor of each set; and a walk over each set for each variant. Every read
/// is checked once.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class GoalData {
  let heldFloor: MutexDictionary
  let carriedFloor: MutexDictionary
  let forHeldFloor: Walk<OwnerHeld>
  let forHeld: Walk<OwnerHeld>
  let forSharedFloor: Walk<Owner>
  let forShared: Walk<Owner>
  let forDefaultFloor: Walk<Owner>
  let forDefault: Walk<Owner>

  init(owners count: Int) {
    let held = shuffled((0..<count).map { _ in OwnerHeld() })
    let carried = shuffled((0..<count).map { _ in Owner() })
    for (index, owner) in held.enumerated() { owner.contextInfo[key] = index }
    for (index, owner) in carried.enumerated() {
      // The same context on Linux, where the default is the shared table; two on Apple
      // platforms, one for each row.
      ContextTable.shared.contextInfo(for: owner)[key] = index
      owner.contextInfo[key] = index
    }
    let (heldFloor, carriedFloor) = (MutexDictionary(held), MutexDictionary(carried))
    check(held, "the owner-held read") { $0.contextInfo[key] }
    check(carried, "the shared table read") { ContextTable.shared.contextInfo(for: $0)[key] }
    check(carried, "the default read") { $0.contextInfo[key] }
    check(held, "the owner-held floor") { heldFloor.value(for: $0) }
    check(carried, "the carried floor") { carriedFloor.value(for: $0) }
    (self.heldFloor, self.carriedFloor) = (heldFloor, carriedFloor)
    (forHeldFloor, forHeld) = (Walk(held), Walk(held))
    (forSharedFloor, forShared) = (Walk(carried), Walk(carried))
    (forDefaultFloor, forDefault) = (Walk(carried), Walk(carried))
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
nonisolated(unsafe) let thousandGoalOwners = GoalData(owners: 1_000)
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
nonisolated(unsafe) let hundredThousandGoalOwners = GoalData(owners: 100_000)

/// The reads of the goals at `count` owners, as users reach them, each beside the
/// `Mutex`-guarded dictionary of the same owners read in the same order.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
func goalReads(owners count: Int, _ data: @escaping @autoclosure () -> GoalData) {
  let floor = "Mutex<[ObjectIdentifier: Int]>, \(count.formatted()) entries"
  compare(
    "owner-held read, \(count.formatted()) owners",
    calibrate: true,
    baseline: Variant(floor) {
      let data = data()
      blackHole(data.forHeldFloor.next { data.heldFloor.value(for: $0) })
    },
    Variant("TinyContext") {
      let data = data()
      blackHole(data.forHeld.next { $0.contextInfo[key] })
    }
  )
  compare(
    "ContextTable.shared read, \(count.formatted()) owners",
    calibrate: true,
    baseline: Variant(floor) {
      let data = data()
      blackHole(data.forSharedFloor.next { data.carriedFloor.value(for: $0) })
    },
    Variant("TinyContext") {
      let data = data()
      blackHole(data.forShared.next { ContextTable.shared.contextInfo(for: $0)[key] })
    }
  )
  compare(
    "default contextInfo read, \(count.formatted()) owners",
    calibrate: true,
    baseline: Variant(floor) {
      let data = data()
      blackHole(data.forDefaultFloor.next { data.carriedFloor.value(for: $0) })
    },
    Variant("TinyContext (ContextTable.shared on Linux)") {
      let data = data()
      blackHole(data.forDefault.next { $0.contextInfo[key] })
    }
  )
}

/// Owners in a fixed shuffled order, each given its index in every stand-in table and in the
/// floor, and a walk over them for each; every read is checked once.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class StandInData {
  let floor: MutexDictionary
  let forFloor: Walk<Owner>
  let forComplete: Walk<Owner>
  let forCopied: Walk<Owner>
  let forWithoutSweep: Walk<Owner>
  let forInEntry: Walk<Owner>

  init(owners count: Int) {
    let owners = shuffled((0..<count).map { _ in Owner() })
    for table in [StandInTable.complete, .copied, .withoutSweep, .inEntry] {
      for (index, owner) in owners.enumerated() { table.store(index, for: owner) }
      check(owners, "a stand-in") { table.value(for: $0) }
    }
    floor = MutexDictionary(owners)
    (forFloor, forComplete, forCopied) = (Walk(owners), Walk(owners), Walk(owners))
    (forWithoutSweep, forInEntry) = (Walk(owners), Walk(owners))
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
nonisolated(unsafe) let standIns = StandInData(owners: 1_000)

/// Stand-ins for `ContextTable.shared`'s read that keep its guarantees, or all but one (see
/// StandInTable, in ContextFloor), each against the floor of the goal rows.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
func standInReads(_ data: @escaping @autoclosure () -> StandInData) {
  compare(
    "ContextTable.shared read, stand-ins, 1,000 owners",
    baseline: Variant("Mutex<[ObjectIdentifier: Int]>, 1,000 entries") {
      let data = data()
      blackHole(data.forFloor.next { data.floor.value(for: $0) })
    },
    Variant("every guarantee, values boxed") {
      let data = data()
      blackHole(data.forComplete.next { StandInTable.complete.value(for: $0) })
    },
    Variant("every guarantee, value copied under the lock") {
      let data = data()
      blackHole(data.forCopied.next { StandInTable.copied.value(for: $0) })
    },
    Variant("copied, no sweep") {
      let data = data()
      blackHole(data.forWithoutSweep.next { StandInTable.withoutSweep.value(for: $0) })
    },
    Variant("copied, value in the table's entry (no view)") {
      let data = data()
      blackHole(data.forInEntry.next { StandInTable.inEntry.value(for: $0) })
    }
  )
}

/// One owner-held context and one plain dictionary in an owner, each holding 42.
nonisolated(unsafe) let single: (held: OwnerHeld, plain: PlainOwner) = {
  let held = OwnerHeld()
  held.contextInfo[key] = 42
  let plain = PlainOwner()
  plain.setValue(42, for: key)
  return (held, plain)
}()

/// 1,000 owners with a context in a private table and in the plain side table, and a walk
/// over them for each.
nonisolated(unsafe) let writers:
  (
    table: ContextTable, plain: PlainSideTable, forTable: Walk<Owner>,
    forPlain: Walk<Owner>
  ) = {
    let owners = (0..<1_000).map { _ in Owner() }
    let table = ContextTable()
    let plain = PlainSideTable()
    for owner in owners {
      table.contextInfo(for: owner)[key] = 0
      plain.setValue(0, for: key, of: owner)
    }
    return (table, plain, Walk(shuffled(owners)), Walk(shuffled(owners)))
  }()

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 10, maxIterations: 2_000)

  if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
    goalReads(owners: 1_000, thousandGoalOwners)
    goalReads(owners: 100_000, hundredThousandGoalOwners)
    standInReads(standIns)
  }

  compare(
    "owner-held read",
    calibrate: true,
    baseline: Variant("plain lock-protected dictionary") {
      blackHole(single.plain.value(for: key))
    },
    Variant("TinyContext") { blackHole(single.held.contextInfo[key]) }
  )

  var counter = 0
  compare(
    "owner-held write",
    baseline: Variant("plain lock-protected dictionary") {
      counter &+= 1
      single.plain.setValue(counter, for: key)
    },
    Variant("TinyContext") {
      counter &+= 1
      single.held.contextInfo[key] = counter
    }
  )

  sideTableReads(owners: 1, oneOwner)
  sideTableReads(owners: 1_000, stored: false, thousandOwnersWithoutContext)

  compare(
    "side-table write, 1,000 owners",
    baseline: Variant("plain lock-protected dictionary") {
      counter &+= 1
      writers.forPlain.next { writers.plain.setValue(counter, for: key, of: $0) }
    },
    Variant("TinyContext ContextTable") {
      counter &+= 1
      writers.forTable.next { writers.table.contextInfo(for: $0)[key] = counter }
    }
  )
}
