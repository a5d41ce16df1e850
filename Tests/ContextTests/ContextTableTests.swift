import Foundation
import Testing
import TinyContext
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextTableTests {
  let key = ContextKey<Int>("value")

  @Test func readingAnObjectWithoutAContextCreatesNoEntry() {
    let table = ContextTable()
    let owner = Model()
    let info = table.contextInfo(for: owner)
    let withDefault = DefaultedContextKey<Bool>("expanded", default: true)
    #expect(info[key] == nil)
    #expect(info[withDefault])
    #expect(info["legacy"] == nil)
    #expect(info.isEmpty)
    #expect(info.removeValue(for: key) == nil)
    #expect(info.removeValue(for: "legacy") == nil)
    info.removeAll()
    info[key] = nil
    #expect(!table.hasContext(for: owner))
    #expect(table.count == 0)
    info[key] = 1
    #expect(table.hasContext(for: owner))
    #expect(table.count == 1)
    #expect(table.contextInfo(for: owner)[key] == 1)
    info.removeAll()  // leaves an empty context in place
    #expect(table.count == 1)
  }

  @Test func theDefaultContextOfAPureSwiftClassCreatesNothingOnRead() {
    let owner = Model()
    #expect(owner.contextInfo[key] == nil)
    #expect(owner.contextInfo.isEmpty)
    #if !canImport(ObjectiveC)
      #expect(!ContextTable.shared.hasContext(for: owner))
      owner.contextInfo[key] = 1
      #expect(ContextTable.shared.hasContext(for: owner))
      #expect(ContextTable.shared.contextInfo(for: owner)[key] == 1)
    #endif
  }

  @Test func aNewObjectAtADeadOwnersAddressNeverSeesItsContext() {
    let trials = stressVolume(full: 10_000, quick: 2_000)
    // Control: without a table, the allocator hands a dead object's address to the next
    // object of the same size, even when a weak reference to the dead one is still held.
    var controlReuses = 0
    for _ in 0..<trials {
      var first: Model? = Model()
      weak let weakFirst = first
      let address = ObjectIdentifier(first!)
      first = nil
      let second = Model()
      if ObjectIdentifier(second) == address { controlReuses += 1 }
      withExtendedLifetime((weakFirst, second)) {}
    }

    // With a context: while its entry is in the table, the dead owner's memory is kept, so
    // no new object lands there; once the entry is reclaimed, one does, and reads nothing.
    let table = ContextTable()
    let survivor = Model()
    var reusesWhileHeld = 0
    var reusesAfterReclaim = 0
    var staleReads = 0
    var unreclaimed = 0
    for trial in 0..<trials {
      var owner: Model? = Model()
      let address = ObjectIdentifier(owner!)
      table.contextInfo(for: owner!)[key] = trial
      owner = nil
      let next = Model()
      if ObjectIdentifier(next) == address { reusesWhileHeld += 1 }
      if table.contextInfo(for: next)[key] != nil { staleReads += 1 }
      // Reclaim the dead entry (the only one: 12 lookups is the stated bound), then allocate
      // again. Bounded, so that a broken sweep fails the test instead of hanging it.
      for _ in 0..<12 where table.count > 0 { _ = table.hasContext(for: survivor) }
      if table.count > 0 { unreclaimed += 1 }
      // A few objects, so that the check does not hang on the order in which this allocator
      // hands freed blocks out again (the thread sanitizer's differs from the system's).
      let afterReclaim = (0..<4).map { _ in Model() }
      if afterReclaim.contains(where: { ObjectIdentifier($0) == address }) {
        reusesAfterReclaim += 1
      }
      staleReads += afterReclaim.filter { table.contextInfo(for: $0)[key] != nil }.count
      withExtendedLifetime(next) {}
    }
    print(
      "address reuse in \(trials) trials: \(controlReuses) without a table,",
      "\(reusesWhileHeld) while the dead owner's entry was held,",
      "\(reusesAfterReclaim) after it was reclaimed; \(staleReads) stale reads")
    #expect(staleReads == 0)
    #expect(unreclaimed == 0)
    #expect(reusesWhileHeld == 0)
    #expect(controlReuses > trials / 2, "the allocator reuses addresses: the test is meaningful")
    #expect(reusesAfterReclaim > trials / 4)
  }

  @Test(arguments: [1, 2, 10, 50], [false, true])
  func aDeadEntryIsReclaimedWithinTheStatedBound(size: Int, lookedUpJustBefore: Bool) {
    // The bound: an entry whose owner dies while the table holds n entries is reclaimed within
    // 12 n further lookups or insertions. Try every position and every cursor phase, and
    // entries that lookups found just before the owner died (the sweep passes those once
    // without looking at their owner).
    var worst = 0
    for victim in 0..<size {
      for warmUp in [0, 1, 3, size, 2 * size + 1] {
        let table = ContextTable()
        var owners: [Model?] = (0..<size).map { _ in Model() }
        for owner in owners { table.contextInfo(for: owner!)[key] = 1 }
        let probe = Model()
        for _ in 0..<warmUp { _ = table.hasContext(for: probe) }
        if lookedUpJustBefore {
          for owner in owners { _ = table.hasContext(for: owner!) }
        }
        owners[victim] = nil
        var operations = 0
        while table.count == size {
          _ = table.hasContext(for: probe)
          operations += 1
          if operations > 12 * size { break }
        }
        #expect(table.count == size - 1, "victim \(victim), warm-up \(warmUp)")
        worst = max(worst, operations)
        withExtendedLifetime(owners) {}
      }
    }
    #expect(worst <= 12 * size)
    print(
      "\(size) entries\(lookedUpJustBefore ? ", looked up" : ""): a dead one reclaimed within",
      "\(worst) lookups (bound \(12 * size))")
  }

  @Test func lookupsOfTheLiveOwnersNeverHoldTheSweepBack() {
    // Every lookup finds a live owner, so every live entry is always one that a lookup found
    // since the sweep last passed it: the sweep passes it and moves on, and reaches the dead
    // entry within the bound, from every position and cursor phase.
    let size = 3
    for victim in 0..<size {
      for warmUp in 0..<(2 * size) {
        let table = ContextTable()
        var owners: [Model?] = (0..<size).map { _ in Model() }
        for owner in owners { table.contextInfo(for: owner!)[key] = 1 }
        let probe = Model()
        for _ in 0..<warmUp { _ = table.hasContext(for: probe) }
        owners[victim] = nil
        let live = owners.compactMap { $0 }
        var operations = 0
        while table.count == size, operations <= 12 * size {
          _ = table.hasContext(for: live[operations % live.count])
          operations += 1
        }
        #expect(table.count == size - 1, "victim \(victim), warm-up \(warmUp)")
      }
    }
  }

  @Test func insertionsReclaimTooWhileNewOwnersArrive() {
    // Churn: each owner dies right after storing its value. Every insertion sweeps two slots,
    // so the table never grows.
    let table = ContextTable()
    var largest = 0
    for index in 0..<10_000 {
      let owner = Model()
      table.contextInfo(for: owner)[key] = index
      largest = max(largest, table.count)
    }
    #expect(largest <= 3)
  }

  @Test func manyDeadOwnersDoNotKeepTheTableLarge() {
    let size = stressVolume(full: 100_000, quick: 10_000)
    let table = ContextTable()
    do {
      let owners = (0..<size).map { _ in Model() }
      for (index, owner) in owners.enumerated() { table.contextInfo(for: owner)[key] = index }
      #expect(table.count == size)
      #expect(table.capacity >= size)
    }
    // All the owners are gone (100,000 of them at full volume). Lookups of an object without
    // a context reclaim them, a sweep step every four lookups, eight dead
    // slots a step, shrinking the storage on the way: well within the bound of 12 n operations
    // (one pass over all-dead slots takes n / 2).
    let probe = Model()
    var operations = 0
    while table.count > 0, operations <= 12 * size {
      _ = table.hasContext(for: probe)
      operations += 1
    }
    #expect(table.count == 0)
    #expect(operations <= size / 2)
    #expect(table.capacity <= 2 * SideTableLimits.minimumCapacity)
    print("\(size) dead owners reclaimed in \(operations) lookups; capacity \(table.capacity)")
  }

  @Test func aSweepStepReclaimsAtMostItsShareOfDeadOwners() {
    // The O(1) work per operation: a step takes a bounded bite of a crowd of dead owners, 8
    // slots, wherever the cursor stands (wrapping round the end), and a lookup between steps
    // takes none.
    let table = ContextTable()
    do {
      let owners = (0..<20).map { _ in Model() }
      for owner in owners { table.contextInfo(for: owner)[key] = 1 }
    }
    let probe = Model()
    var counts: [Int] = []
    for _ in 0..<(3 * SideTableLimits.lookupsPerSweepStep) {
      _ = table.hasContext(for: probe)
      counts.append(table.count)
    }
    #expect(counts == [20, 20, 20, 12, 12, 12, 12, 4, 4, 4, 4, 0])
  }

  /// How a chain's owner holds the next one in its context.
  enum LinkShape: String, CaseIterable, Sendable {
    /// `ContextKey<Link>`.
    case typed
    /// `ContextKey<any Sendable>`: an existential whose contents are the object.
    case existential
    /// A named value.
    case named

    static let anyKey = ContextKey<any Sendable>("next")

    func link(_ next: Link, from info: ContextInfo) {
      switch self {
      case .typed: info[nextLinkKey] = next
      case .existential: info[Self.anyKey] = next
      case .named: info["next"] = next
      }
    }
  }

  @Test(arguments: [false, true], LinkShape.allCases)
  func aChainOfOwnersIsFreedInLinearlyManyOperations(headFirst: Bool, shape: LinkShape) {
    // Each owner's context holds the next owner; only the first is held from outside. Once it
    // is gone, its entry is reclaimed within the bound for one dead entry, and releasing its
    // context frees the next owner, whose entry is reclaimed at once, and so on: the whole
    // chain within 12 n operations (one by one, each waiting for the sweep to come round
    // again, it took about n² / 2).
    let size = 2_000
    let table = ContextTable()
    let released = Counter()
    do {
      let owners = (0..<size).map { _ in Link(released: released) }
      let order = headFirst ? Array(0..<size - 1) : Array((0..<size - 1).reversed())
      for index in order {
        shape.link(owners[index + 1], from: table.contextInfo(for: owners[index]))
      }
      #expect(table.count == size - 1)
    }
    let probe = Model()
    var operations = 0
    while table.count > 0, operations <= 12 * size {
      _ = table.hasContext(for: probe)
      operations += 1
    }
    #expect(table.count == 0)
    #expect(released.value == size)
    #expect(operations <= 12 * size)
    print("a chain of \(size) owners freed in \(operations) lookups (bound \(12 * size))")
  }

  @Test func anObjectThatAReclaimedContextHeldButThatLivesOnKeepsItsContext() {
    // The follow-up after a reclaim only reclaims entries whose object is gone.
    let table = ContextTable()
    let survivor = Link(released: Counter())
    table.contextInfo(for: survivor)[key] = 7
    do {
      let owner = Model()
      table.contextInfo(for: owner)[nextLinkKey] = survivor
      table.contextInfo(for: owner)["also"] = survivor
    }
    let probe = Model()
    for _ in 0..<(12 * 2) where table.count == 2 { _ = table.hasContext(for: probe) }
    #expect(table.count == 1)
    #expect(table.contextInfo(for: survivor)[key] == 7)
  }

  @Test func aLongChainOfOwnersInATableIsFreedOnASmallStack() {
    // Freeing the chain follows it from each reclaimed context to the next owner's slot: a
    // loop, not a recursion as deep as the chain.
    let size = stressVolume(full: 1_000_000, quick: 10_000)
    let released = Counter()
    let lookups = Recorder<Int>()
    let finished = onSmallStack {
      let table = ContextTable()
      var head: Link? = Link(released: released)
      for _ in 1..<size {
        let link = Link(released: released)
        table.contextInfo(for: link)[nextLinkKey] = head
        head = link
      }
      head = nil
      let probe = Model()
      var operations = 0
      while table.count > 0, operations <= 12 * size {
        _ = table.hasContext(for: probe)
        operations += 1
      }
      lookups.record(operations)
    }
    finished.wait()
    #expect(released.value == size)
    #expect(lookups.all.allSatisfy { $0 <= 12 * size })
  }

  @Test func freeingAChainAmongLiveOwnersLeavesEachLiveOwnerItsOwnContext() {
    // Each reclaimed link hands the table the next one, whose slot the sweep has passed
    // already: reclaiming it moves slots around the cursor, and every live owner between the
    // links must keep its own context.
    let table = ContextTable()
    let indexKey = ContextKey<Int>("index")
    let released = Counter()
    var live: [Model] = []
    var head: Link? = Link(released: released)
    for index in 0..<300 {
      let owner = Model()
      table.contextInfo(for: owner)[indexKey] = index
      live.append(owner)
      let link = Link(released: released)
      table.contextInfo(for: link)[nextLinkKey] = head
      head = link
    }
    for index in 300..<350 {  // live owners after the head, so the cursor passes it
      let owner = Model()
      table.contextInfo(for: owner)[indexKey] = index
      live.append(owner)
    }
    head = nil
    var operations = 0
    while table.count > live.count, operations <= 100_000 {
      _ = table.hasContext(for: live[operations % live.count])
      operations += 1
    }
    #expect(released.value == 301)
    #expect(table.count == live.count)
    for (index, owner) in live.enumerated() {
      #expect(table.contextInfo(for: owner)[indexKey] == index)
    }
  }

  @Test func valuesAreReleasedOnceTheOwnerIsGoneAndTheEntryReclaimed() {
    let table = ContextTable()
    var weak = WeakReferences()
    let survivor = Model()
    table.contextInfo(for: survivor)[key] = 0
    do {
      let owner = Model()
      let probe = Probe()
      weak.watch(probe)
      table.contextInfo(for: owner)[ContextKey<Probe>("probe")] = probe
    }
    // The owner is gone; the entry, and so the value, stays until the sweep reaches it.
    #expect(weak.aliveCount == 1)
    #expect(table.count == 2)
    for _ in 0..<(12 * 2) where table.count == 2 {
      _ = table.hasContext(for: survivor)
    }
    #expect(table.count == 1)
    #expect(weak.aliveCount == 0)
  }

  @Test func aValueReferencingItsOwnerKeepsBothAliveUntilRemoved() {
    // Owner → context → value → owner is a retain cycle wherever the context lives: neither
    // is freed until the value is removed (or the reference in it is weak).
    let holderKey = ContextKey<Holder>("holder")

    weak var ownerHeld: OwnerHeld?
    do {
      let owner = OwnerHeld()
      ownerHeld = owner
      owner.contextInfo[holderKey] = Holder(owner)
    }
    #expect(ownerHeld != nil)
    ownerHeld?.contextInfo.removeAll()
    #expect(ownerHeld == nil)

    weak var carried: Model?
    do {
      let owner = Model()
      carried = owner
      owner.contextInfo[holderKey] = Holder(owner)
    }
    let probe = Model()
    for _ in 0..<100 { _ = ContextTable.shared.hasContext(for: probe) }  // sweeps
    #expect(carried != nil)
    carried?.contextInfo.removeAll()
    // Another test's lookup on the shared table may be holding the owner for the moment it
    // takes to see whether it is alive (it releases it right after unlocking): wait that out,
    // for at most 10 s.
    let deadline = ContinuousClock.now + .seconds(10)
    while carried != nil, ContinuousClock.now < deadline { sched_yield() }
    #expect(carried == nil)

    let table = ContextTable()
    weak var tabled: Model?
    do {
      let owner = Model()
      tabled = owner
      table.contextInfo(for: owner)[holderKey] = Holder(owner)
    }
    for _ in 0..<100 { _ = table.hasContext(for: probe) }  // sweeps
    #expect(tabled != nil)
    #expect(table.count == 1)
    if let owner = tabled { table.contextInfo(for: owner).removeAll() }
    #expect(tabled == nil)
    for _ in 0..<100 { _ = table.hasContext(for: probe) }
    #expect(table.count == 0)
  }

  @Test func aKeptContextInfoOutlivesItsOwner() {
    let table = ContextTable()
    var owner: Model? = Model()
    table.contextInfo(for: owner!)[key] = 1
    let found = table.contextInfo(for: owner!)  // the context exists
    let other: Model? = Model()
    let pending = table.contextInfo(for: other!)  // no context yet
    owner = nil
    // The found one keeps the context it reached, values included.
    #expect(found[key] == 1)
    found[key] = 2
    #expect(found[key] == 2)
    // A pending one, whose object is gone before its first write, reads as empty and writes
    // to a context of its own, attached to nothing.
    var dying = other
    _ = consume other
    dying = nil
    withExtendedLifetime(dying) {}
    #expect(pending[key] == nil)
    let before = table.count
    pending[key] = 3
    #expect(pending[key] == 3)
    #expect(table.count == before)
  }

  @Test func aPendingContextInfoJoinsTheContextCreatedMeanwhile() {
    let table = ContextTable()
    let owner = Model()
    let early = table.contextInfo(for: owner)
    let late = table.contextInfo(for: owner)
    #expect(early[key] == nil)
    late[key] = 1  // creates the context
    #expect(early[key] == 1)
    early[key] = 2
    #expect(late[key] == 2)
    #expect(table.count == 1)
  }

  @Test func reclaimedValuesAreReleasedOutsideTheTablesLock() {
    // A value whose deinit uses the same table: reclaiming it under the lock would deadlock.
    let table = ContextTable()
    let survivor = Model()
    let releases = ContextKey<Int>("releases")
    let counter = table.contextInfo(for: survivor)
    counter[releases] = 0
    do {
      let owner = Model()
      table.contextInfo(for: owner)[ContextKey<ReentrantValue>("value")] =
        ReentrantValue(context: table.contextInfo(for: survivor), key: releases)
    }
    for _ in 0..<(12 * 2) where table.count == 2 {
      _ = table.hasContext(for: survivor)
    }
    #expect(table.count == 1)
    #expect(counter[releases] == 1)
  }

  @Test func aReclaimedValuesDeinitMayUseTheSameTableOnTheReclaimingThread() {
    // The deinit runs on the thread whose lookup reclaimed the entry, after the table's lock:
    // it inserts, reads and removes in the same table.
    let table = ContextTable()
    let survivor = Model()
    let added = Recorder<Model>()
    let threads = Recorder<pthread_t>()
    table.contextInfo(for: survivor)[key] = 0
    do {
      let owner = Model()
      table.contextInfo(for: owner)[ContextKey<OnDeinit>("value")] = OnDeinit {
        threads.record(pthread_self())
        let newcomer = Model()
        added.record(newcomer)
        table.contextInfo(for: newcomer)[ContextKey<Int>("added")] = 1
        _ = table.hasContext(for: survivor)
        table.contextInfo(for: survivor)[ContextKey<Int>("touched")] = 1
        table.contextInfo(for: survivor).removeValue(for: ContextKey<Int>("touched"))
      }
    }
    let reclaimer = startThread {
      for _ in 0..<(12 * 2) where threads.count == 0 { _ = table.hasContext(for: survivor) }
      threads.record(pthread_self())
    }
    reclaimer.wait()
    let seen = threads.all
    #expect(seen.count == 2)
    #expect(seen.count == 2 && pthread_equal(seen[0], seen[1]) != 0)
    #expect(added.count == 1)
    #expect(table.count == 2)  // the survivor and the newcomer
    #expect(added.all.allSatisfy { table.hasContext(for: $0) })
  }

  @Test func entriesAreKeyedByIdentityNeverByEqualityOrTypeName() {
    let table = ContextTable()
    let first = FirstScope.Owner()
    let second = SecondScope.Owner()
    let equalA = AlwaysEqual()
    let equalB = AlwaysEqual()
    let owners: [AnyObject] = [first, second, equalA, equalB]
    for (index, owner) in owners.enumerated() { table.contextInfo(for: owner)[key] = index }
    #expect(equalA == equalB && equalA.hashValue == equalB.hashValue)
    #expect(table.count == 4)
    #expect(owners.map { table.contextInfo(for: $0)[key] } == [0, 1, 2, 3])
    let other = ContextTable()
    #expect(other.contextInfo(for: first)[key] == nil)  // another table, another context
  }

  @Test func aTableReleasesEverythingWhenItGoes() {
    var weak = WeakReferences()
    let owner = Model()
    do {
      let table = ContextTable()
      let probe = Probe()
      weak.watch(probe)
      weak.watch(table)
      table.contextInfo(for: owner)[ContextKey<Probe>("probe")] = probe
    }
    #expect(weak.aliveCount == 0)
    #expect(owner.contextInfo.isEmpty)  // a private table never touches the default context
  }
}

/// Two classes with the same name, in two scopes.
enum FirstScope {
  final class Owner: Sendable {}
  struct Item: Sendable, Equatable { let id: Int }
}
enum SecondScope {
  final class Owner: Sendable {}
  struct Item: Sendable, Equatable { let id: Int }
}

/// A class whose instances are all equal and hash alike: a table must tell them apart by
/// identity.
final class AlwaysEqual: Hashable, Sendable {
  static func == (_: AlwaysEqual, _: AlwaysEqual) -> Bool { true }
  func hash(into hasher: inout Hasher) {}
}

/// The table's tuning, as documented in ContextTable and Docs/Context.md.
enum SideTableLimits {
  static let minimumCapacity = 64
  /// One sweep step per this many lookups.
  static let lookupsPerSweepStep = 4
}
