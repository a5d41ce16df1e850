// TinyContext reads and writes as users reach them: `owner.contextInfo[key]` on a class that
// holds its context, and on a class that takes the default `contextInfo` (on Linux, the shared
// side table). The reads of 1,000 owners are paired with the floor the goals are stated
// against: one `Mutex` around a dictionary of 1,000 `ObjectIdentifier` keys, looked up with the
// owner's identity. The other rows are paired with a plain lock-protected dictionary that does
// the same lookup without any lifetime management: the dictionary in the owner for owner-held
// contexts, a global one keyed by object identity for the side table. One benchmark iteration
// is one read or write; each sample runs 1,000 of them (`scalingFactor: .kilo`), so the times
// below are per operation. Each group's data is a lazily initialized global, so a benchmark
// process builds only the data of the group it measures (and the shared table holds only its
// owners). `Mutex` needs macOS 15 on Apple platforms; this suite is run on Linux.

import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
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

/// Hands out the owners in a fixed random order, so that reads do not walk memory in order.
final class Cycle<Element> {
  private let elements: [Element]
  private var position = 0

  init(_ elements: [Element]) {
    var generator = SystemRandomNumberGenerator()
    self.elements = elements.shuffled(using: &generator)
  }

  @inline(__always)
  func next() -> Element {
    let element = elements[position]
    position += 1
    if position == elements.count { position = 0 }
    return element
  }
}

let key = ContextKey<Int>("value")

/// Owners that carry the default context, each given its index in it and in a private table,
/// and the plain side table holding the same; a cycle over them for each variant.
final class SideTableData {
  let table = ContextTable()
  let plain = PlainSideTable()
  let forPlain: Cycle<Owner>
  let forTable: Cycle<Owner>
  let forDefault: Cycle<Owner>

  init(owners count: Int, stored: Bool) {
    let owners = (0..<count).map { _ in Owner() }
    if stored {
      for (index, owner) in owners.enumerated() {
        owner.contextInfo[key] = index
        table.contextInfo(for: owner)[key] = index
        plain.setValue(index, for: key, of: owner)
      }
    }
    (forPlain, forTable, forDefault) = (Cycle(owners), Cycle(owners), Cycle(owners))
  }
}

// The data below is global, so that a process builds only what it measures, and
// `nonisolated(unsafe)`: benchmark bodies run on one thread.
nonisolated(unsafe) let oneOwner = SideTableData(owners: 1, stored: true)
nonisolated(unsafe) let thousandOwners = SideTableData(owners: 1_000, stored: true)
nonisolated(unsafe) let hundredThousandOwners = SideTableData(owners: 100_000, stored: true)
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
      blackHole(data.plain.value(for: key, of: data.forPlain.next()))
    },
    Variant("TinyContext default contextInfo") {
      blackHole(data().forDefault.next().contextInfo[key])
    },
    Variant("TinyContext ContextTable") {
      let data = data()
      blackHole(data.table.contextInfo(for: data.forTable.next())[key])
    }
  )
}

/// The floor of the goals: a `Mutex` around a dictionary of `count` entries keyed by the owners'
/// identities.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class MutexDictionary: Sendable {
  private let entries: Mutex<[ObjectIdentifier: Int]>

  init(_ owners: [AnyObject]) {
    var entries: [ObjectIdentifier: Int] = [:]
    for (index, owner) in owners.enumerated() { entries[ObjectIdentifier(owner)] = index }
    self.entries = Mutex(entries)
  }

  @inline(never)
  func value(for owner: AnyObject) -> Int? {
    entries.withLock { $0[ObjectIdentifier(owner)] }
  }
}

/// Stops the suite unless `read` gives every owner its index: a benchmark of a wrong answer
/// would measure nothing.
func check<Owner: AnyObject>(_ owners: [Owner], _ name: String, _ read: (Owner) -> Int?) {
  for (index, owner) in owners.enumerated() where read(owner) != index {
    fatalError("\(name) reads \(String(describing: read(owner))) for owner \(index)")
  }
}

/// The data of the goals' reads: 1,000 owners that hold their context, 1,000 that carry the
/// default one (in `ContextTable.shared` on Linux), each given its index, the floor for each
/// set, and a cycle over them for each variant; every read is checked once.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class GoalData {
  let heldFloor: MutexDictionary
  let carriedFloor: MutexDictionary
  let forHeldFloor: Cycle<OwnerHeld>
  let forHeld: Cycle<OwnerHeld>
  let forCarriedFloor: Cycle<Owner>
  let forCarried: Cycle<Owner>

  init() {
    let held = (0..<1_000).map { _ in OwnerHeld() }
    let carried = (0..<1_000).map { _ in Owner() }
    for (index, owner) in held.enumerated() { owner.contextInfo[key] = index }
    for (index, owner) in carried.enumerated() { owner.contextInfo[key] = index }
    heldFloor = MutexDictionary(held)
    carriedFloor = MutexDictionary(carried)
    check(held, "the owner-held read") { $0.contextInfo[key] }
    check(carried, "the default read") { $0.contextInfo[key] }
    (forHeldFloor, forHeld) = (Cycle(held), Cycle(held))
    (forCarriedFloor, forCarried) = (Cycle(carried), Cycle(carried))
    check(held, "the owner-held floor") { heldFloor.value(for: $0) }
    check(carried, "the default floor") { carriedFloor.value(for: $0) }
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
nonisolated(unsafe) let goalData = GoalData()

/// The reads of the goals, as users reach them: `owner.contextInfo[key]` over 1,000 owners that
/// hold their context, and over 1,000 that carry the default one, each beside the
/// `Mutex`-guarded dictionary of 1,000 entries.
func goalReads() {
  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
  compare(
    "owner-held read, 1,000 owners",
    calibrate: true,
    baseline: Variant("Mutex<[ObjectIdentifier: Int]>, 1,000 entries") {
      blackHole(goalData.heldFloor.value(for: goalData.forHeldFloor.next()))
    },
    Variant("TinyContext") { blackHole(goalData.forHeld.next().contextInfo[key]) }
  )
  compare(
    "default contextInfo read, 1,000 owners",
    calibrate: true,
    baseline: Variant("Mutex<[ObjectIdentifier: Int]>, 1,000 entries") {
      blackHole(goalData.carriedFloor.value(for: goalData.forCarriedFloor.next()))
    },
    Variant("TinyContext (ContextTable.shared on Linux)") {
      blackHole(goalData.forCarried.next().contextInfo[key])
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

/// 1,000 owners with a context in a private table and in the plain side table, and a cycle
/// over them for each.
nonisolated(unsafe) let writers:
  (
    table: ContextTable, plain: PlainSideTable, forTable: Cycle<Owner>,
    forPlain: Cycle<Owner>
  ) = {
    let owners = (0..<1_000).map { _ in Owner() }
    let table = ContextTable()
    let plain = PlainSideTable()
    for owner in owners {
      table.contextInfo(for: owner)[key] = 0
      plain.setValue(0, for: key, of: owner)
    }
    return (table, plain, Cycle(owners), Cycle(owners))
  }()

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 10, maxIterations: 2_000)

  goalReads()

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
  sideTableReads(owners: 1_000, thousandOwners)
  sideTableReads(owners: 100_000, hundredThousandOwners)
  sideTableReads(owners: 1_000, stored: false, thousandOwnersWithoutContext)

  compare(
    "side-table write, 1,000 owners",
    baseline: Variant("plain lock-protected dictionary") {
      counter &+= 1
      writers.plain.setValue(counter, for: key, of: writers.forPlain.next())
    },
    Variant("TinyContext ContextTable") {
      counter &+= 1
      writers.table.contextInfo(for: writers.forTable.next())[key] = counter
    }
  )
}
