// TinyContext reads and writes, each paired with a plain lock-protected dictionary that does
// the same lookup without any lifetime management: the dictionary in the owner for owner-held
// contexts, a global one keyed by object identity for the side table. The reads of 1,000
// owners are also paired with the floor the goals are stated against: one `Mutex` around a
// dictionary of 1,000 `ObjectIdentifier` keys, looked up with the owner's identity. One
// benchmark iteration is one read or write; each sample runs 1,000 of them
// (`scalingFactor: .kilo`), so the times below are per operation. `Mutex` needs macOS 15 on
// Apple platforms; this suite is run on Linux.

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

/// Registers the side-table read benchmarks for `count` owners; without `stored`, the owners
/// never stored anything (the miss path, which creates nothing).
func sideTableReads(owners count: Int, stored: Bool = true) {
  let owners = (0..<count).map { _ in Owner() }
  let table = ContextTable()
  let plain = PlainSideTable()
  if stored {
    for (index, owner) in owners.enumerated() {
      table.contextInfo(for: owner)[key] = index
      plain.setValue(index, for: key, of: owner)
      owner.contextInfo[key] = index
    }
  }
  let forPlain = Cycle(owners)
  let forTable = Cycle(owners)
  let forDefault = Cycle(owners)
  compare(
    "side-table read, \(stored ? "" : "no context, ")\(count.formatted()) owners",
    baseline: Variant("plain lock-protected dictionary") {
      blackHole(plain.value(for: key, of: forPlain.next()))
    },
    Variant("TinyContext ContextTable") {
      blackHole(table.contextInfo(for: forTable.next())[key])
    },
    Variant("TinyContext default contextInfo") {
      blackHole(forDefault.next().contextInfo[key])
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

/// The reads of the goals: an owner-held `ContextInfo` and the side table, 1,000 owners each,
/// beside the `Mutex`-guarded dictionary of 1,000 entries.
func goalReads() {
  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
  let held = (0..<1_000).map { _ in OwnerHeld() }
  let carried = (0..<1_000).map { _ in Owner() }
  let table = ContextTable()
  for (index, owner) in held.enumerated() { owner.contextInfo[key] = index }
  for (index, owner) in carried.enumerated() {
    table.contextInfo(for: owner)[key] = index
    owner.contextInfo[key] = index
  }
  let heldFloor = MutexDictionary(held)
  let carriedFloor = MutexDictionary(carried)
  check(held, "the owner-held read") { $0.contextInfo[key] }
  check(carried, "the side-table read") { table.contextInfo(for: $0)[key] }
  check(carried, "the default read") { $0.contextInfo[key] }
  check(held, "the floor") { heldFloor.value(for: $0) }

  let forHeldFloor = Cycle(held)
  let forHeld = Cycle(held)
  compare(
    "owner-held read, 1,000 owners",
    calibrate: true,
    baseline: Variant("Mutex<[ObjectIdentifier: Int]>, 1,000 entries") {
      blackHole(heldFloor.value(for: forHeldFloor.next()))
    },
    Variant("TinyContext") { blackHole(forHeld.next().contextInfo[key]) }
  )

  let forCarriedFloor = Cycle(carried)
  let forTable = Cycle(carried)
  let forDefault = Cycle(carried)
  compare(
    "side-table read, 1,000 live owners",
    baseline: Variant("Mutex<[ObjectIdentifier: Int]>, 1,000 entries") {
      blackHole(carriedFloor.value(for: forCarriedFloor.next()))
    },
    Variant("TinyContext ContextTable") {
      blackHole(table.contextInfo(for: forTable.next())[key])
    },
    Variant("TinyContext default contextInfo") {
      blackHole(forDefault.next().contextInfo[key])
    }
  )
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 10, maxIterations: 2_000)

  goalReads()

  let held = OwnerHeld()
  held.contextInfo[key] = 42
  let plainOwner = PlainOwner()
  plainOwner.setValue(42, for: key)
  compare(
    "owner-held read",
    calibrate: true,
    baseline: Variant("plain lock-protected dictionary") {
      blackHole(plainOwner.value(for: key))
    },
    Variant("TinyContext") { blackHole(held.contextInfo[key]) }
  )

  var counter = 0
  compare(
    "owner-held write",
    baseline: Variant("plain lock-protected dictionary") {
      counter &+= 1
      plainOwner.setValue(counter, for: key)
    },
    Variant("TinyContext") {
      counter &+= 1
      held.contextInfo[key] = counter
    }
  )

  sideTableReads(owners: 1)
  sideTableReads(owners: 1_000)
  sideTableReads(owners: 100_000)

  sideTableReads(owners: 1_000, stored: false)

  let writers = (0..<1_000).map { _ in Owner() }
  let writeTable = ContextTable()
  let writePlain = PlainSideTable()
  for owner in writers {
    writeTable.contextInfo(for: owner)[key] = 0
    writePlain.setValue(0, for: key, of: owner)
  }
  let writersForPlain = Cycle(writers)
  let writersForTable = Cycle(writers)
  compare(
    "side-table write, 1,000 owners",
    baseline: Variant("plain lock-protected dictionary") {
      counter &+= 1
      writePlain.setValue(counter, for: key, of: writersForPlain.next())
    },
    Variant("TinyContext ContextTable") {
      counter &+= 1
      writeTable.contextInfo(for: writersForTable.next())[key] = counter
    }
  )
}
