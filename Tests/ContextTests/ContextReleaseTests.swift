import Testing
import TinyTestSupport

@testable import TinyContext

/// No lock of TinyContext is held while a user's value or object is released: every sweep,
/// shrink, follow-up and release of a context hands what it drops back to be released after
/// the lock. Each test's values have a `deinit` that uses the same table or context, which
/// under the lock would stop the program (the lock traps when its holder takes it again).
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextReleaseTests {
  let key = ContextKey<Int>("value")
  let reentrant = ContextKey<OnDeinit>("reentrant")

  @Test func aSweepHandsBackTheLiveOwnerItLoadsForReleaseAfterTheLock() {
    // The sweep loads each owner it passes to learn whether it is alive. If another thread
    // drops its last reference meanwhile, releasing the loaded one runs the owner's deinit:
    // the sweep hands it back, to be released after the lock. Here the test drops its own
    // reference at that point, between the locked step and the release.
    var table = SideTable()
    var leftovers = SideTable.Leftovers()
    let deinits = Counter()
    var owner: OnDeinit? = OnDeinit { deinits.increment() }
    _ = table.storage(for: owner!, creating: true, leftovers: &leftovers)
    leftovers.releaseOwners()
    let probe = Model()
    var handedBack = 0
    for _ in 0..<SideTable.lookupsPerSweepStep {
      var step = SideTable.Leftovers()
      _ = table.storage(for: probe, creating: false, leftovers: &step)
      guard !step.isEmpty else { continue }
      handedBack += 1
      owner = nil  // the last reference outside the table's step
      #expect(deinits.value == 0)
      step.releaseOwners()
      #expect(deinits.value == 1)
    }
    #expect(handedBack == 1)
    #expect(owner == nil)
  }

  @Test func reclaimingAndShrinkingReleaseTheDeadOwnersValuesAfterTheLock() {
    // Many dead owners, each with a value whose deinit reads, writes and removes in the same
    // table; the lookups that reclaim them also shrink the table's storage.
    let size = 1_000
    let table = ContextTable()
    let survivor = Model()
    let deinits = Counter()
    table.contextInfo(for: survivor)[key] = 0
    do {
      let owners = (0..<size).map { _ in Model() }
      for owner in owners {
        table.contextInfo(for: owner)[reentrant] = OnDeinit { [key] in
          let info = table.contextInfo(for: survivor)
          info[key] = (info[key] ?? 0) + 1
          info["touched"] = true
          info.removeValue(for: "touched")
          _ = table.hasContext(for: survivor)
          deinits.increment()
        }
      }
    }
    let probe = Model()
    var operations = 0
    while table.count > 1, operations <= 12 * size {
      _ = table.hasContext(for: probe)
      operations += 1
    }
    #expect(table.count == 1)
    #expect(deinits.value == size)
    #expect(table.contextInfo(for: survivor)[key] == size)
    #expect(table.capacity <= 2 * SideTableLimits.minimumCapacity)
  }

  @Test func aFollowedUpChainReleasesEachLinksValuesAfterTheLock() {
    // Each link's context holds the next link and a value whose deinit uses the same table;
    // the chain is freed by the follow-ups of one reclaimed entry.
    let size = 500
    let table = ContextTable()
    let survivor = Model()
    let released = Counter()
    let deinits = Counter()
    table.contextInfo(for: survivor)[key] = 0
    do {
      let links = (0..<size).map { _ in Link(released: released) }
      for index in links.indices {
        let info = table.contextInfo(for: links[index])
        if index + 1 < size { info[nextLinkKey] = links[index + 1] }
        info[reentrant] = OnDeinit { [key] in
          let info = table.contextInfo(for: survivor)
          info[key] = (info[key] ?? 0) + 1
          deinits.increment()
        }
      }
    }
    let probe = Model()
    var operations = 0
    while table.count > 1, operations <= 12 * size {
      _ = table.hasContext(for: probe)
      operations += 1
    }
    #expect(table.count == 1)
    #expect(released.value == size)
    #expect(deinits.value == size)
    #expect(table.contextInfo(for: survivor)[key] == size)
  }

  @Test(arguments: ContextKind.allCases)
  func aContextThatGoesReleasesItsValuesAfterEveryLock(kind: ContextKind) {
    // The context goes with its owner (owner-held), its table (a private table) or when the
    // shared table reclaims it (the default context on Linux); its value's deinit uses another
    // context, the shared table and a table of its own.
    let other = ContextInfo()
    let otherTable = ContextTable()
    let otherOwner = Model()
    let deinits = Counter()
    do {
      let (info, keepAlive) = kind.make()
      info[reentrant] = OnDeinit { [key] in
        other[key] = (other[key] ?? 0) + 1
        otherOwner.contextInfo[key] = 1
        otherTable.contextInfo(for: otherOwner)[key] = 1
        _ = ContextTable.shared.hasContext(for: otherOwner)
        deinits.increment()
      }
      withExtendedLifetime(keepAlive) {}
    }
    #if !canImport(ObjectiveC)
      if kind == .carried { sweepSharedTable { deinits.value > 0 } }
    #endif
    #expect(deinits.value == 1)
    #expect(other[key] == 1)
    #expect(otherTable.contextInfo(for: otherOwner)[key] == 1)
  }
}
