import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomStoreTests {
  struct Doc: Equatable {
    let id: Int
    var title = ""
  }

  @Test func handsEveryCallerTheSameAtomWhileItIsHeld() {
    let made = Recorder<Int>()
    let store = AtomStore<Int, Doc> { id in
      made.record(id)
      return Doc(id: id)
    }
    let a = store.atom(for: 42)
    let b = store.atom(for: 42)
    #expect(a === b)
    #expect(store.atom(for: 7) !== a)
    a.update { $0.title = "Shared" }
    #expect(store.atom(for: 42).value.title == "Shared")
    #expect(made.all == [42, 7])
  }

  @Test func makesAFreshAtomOnceNobodyHoldsIt() {
    let store = AtomStore<String, Int> { _ in 0 }
    weak var weakFirst: Atom<Int>?
    do {
      let first = store.atom(for: "k")
      first.set(5)
      weakFirst = first
    }
    #expect(weakFirst == nil)  // the store holds its atoms weakly
    #expect(store.atom(for: "k").value == 0)
  }

  @Test func sweepsDeadEntriesSoTheTableStaysBounded() {
    let store = AtomStore<Int, Int> { $0 }
    let kept = (0..<10).map { store.atom(for: $0) }
    for key in 10..<10_000 {
      _ = store.atom(for: key)  // released at once
    }
    #expect(store.entryCount <= 2 * kept.count + 16)
    #expect(kept.enumerated().allSatisfy { store.atom(for: $0.offset) === $0.element })
  }

  @Test func callersThatAllMissTheLookupAllGetTheOneStoredAtom() async {
    let callers = 4
    let everyoneMissed = Barrier(parties: callers)
    let made = Counter()
    let store = AtomStore<Int, Int> { _ in
      made.increment()
      everyoneMissed.arriveAndWait()  // no caller inserts before every caller has looked up
      return 0
    }
    let held = Recorder<Atom<Int>>()
    await onThreads(callers) { _ in
      let atom = store.atom(for: 1)
      held.record(atom)
      atom.update { $0 += 1 }
    }
    #expect(made.value == callers)  // each missed and made a value…
    #expect(Set(held.all.map(ObjectIdentifier.init)).count == 1)  // …and all got the first
    #expect(store.atom(for: 1).value == callers)
    #expect(store.entryCount == 1)
  }

  /// A key whose hash value is the same for every key: all keys share one bucket.
  struct Colliding: Hashable, Sendable {
    let name: String

    func hash(into hasher: inout Hasher) {
      hasher.combine(0)
    }
  }

  @Test func keysWithTheSameHashStayApartEvenWhenOneIsInsertedMeanwhile() async {
    let inMake = Gate()
    let release = Gate()
    let store = AtomStore<Colliding, String> { key in
      if key.name == "slow" {
        inMake.open()  // "slow" missed its lookup…
        release.wait()
      }
      return key.name
    }
    let slow = Recorder<Atom<String>>()
    let slowDone = startThread { slow.record(store.atom(for: Colliding(name: "slow"))) }
    await inMake.opened()
    let fast = store.atom(for: Colliding(name: "fast"))  // …and the bucket changes meanwhile
    release.open()
    await slowDone.opened()
    let slowAtom = slow.all[0]
    #expect(slowAtom !== fast)
    #expect(slowAtom.value == "slow")
    #expect(fast.value == "fast")
    #expect(store.atom(for: Colliding(name: "slow")) === slowAtom)
    #expect(store.atom(for: Colliding(name: "fast")) === fast)
    #expect(store.entryCount == 2)
  }

  @Test func theSameKeyInsertedMeanwhileIsHandedToTheLateCaller() async {
    let inMake = Gate()
    let release = Gate()
    let blockOnce = Once()
    let store = AtomStore<String, Int> { _ in
      if blockOnce.first() {
        inMake.open()
        release.wait()
        return 1
      }
      return 2
    }
    let late = Recorder<Atom<Int>>()
    let lateDone = startThread { late.record(store.atom(for: "k")) }
    await inMake.opened()
    let early = store.atom(for: "k")  // stored while the first caller still makes its value
    release.open()
    await lateDone.opened()
    #expect(late.all[0] === early)
    #expect(early.value == 2)
    #expect(store.entryCount == 1)
  }

  /// A key whose `hash(into:)`, `==` and `deinit` call back into the store, through `probe`.
  final class Reentrant: Hashable, Sendable {
    let name: String
    let probe: @Sendable () -> Void

    init(_ name: String, probe: @escaping @Sendable () -> Void) {
      self.name = name
      self.probe = probe
    }

    static func == (lhs: Reentrant, rhs: Reentrant) -> Bool {
      lhs.probe()
      return lhs.name == rhs.name
    }

    func hash(into hasher: inout Hasher) {
      probe()
      hasher.combine(name)
    }

    deinit {
      probe()
    }
  }

  @Test func aKeysHashEqualityAndDeinitRunOutsideTheStoresLock() {
    let later = Later<AtomStore<Reentrant, Int>>()
    let probes = Counter()
    let probe: @Sendable () -> Void = {
      probes.increment()
      _ = later.value?.entryCount  // takes the store's lock: traps if it is held
    }
    let store = AtomStore<Reentrant, Int> { _ in 0 }
    later.value = store
    let kept = store.atom(for: Reentrant("kept", probe: probe))
    #expect(store.atom(for: Reentrant("kept", probe: probe)) === kept)  // hash and ==
    for index in 0..<40 {
      _ = store.atom(for: Reentrant("gone \(index)", probe: probe))  // swept: keys released
    }
    #expect(store.entryCount < 40)
    #expect(probes.value > 40)
    #expect(store.atom(for: Reentrant("kept", probe: probe)) === kept)
  }

  @Test func aReleasedAtomsValueDeinitMayUseTheStore() {
    let later = Later<AtomStore<Int, Probe>>()
    let log = Recorder<Int>()
    let store = AtomStore<Int, Probe> { key in
      guard key == 1 else { return Probe(key) }
      return Probe(key) { log.record(later.value?.atom(for: -1).value.id ?? 0) }
    }
    later.value = store
    do {
      let atom = store.atom(for: 1)
      atom.set(Probe(10))  // the made probe is released: its deinit asks the store for -1
    }
    #expect(log.all == [-1])
  }

  @Test func atomsDroppedWhileAnotherThreadSweepsAreReleasedOutsideTheLock() async {
    // One thread holds a hundred atoms and drops them one by one, over and over; the other asks
    // for new keys, so the store keeps sweeping its table, holding each live atom for a moment:
    // often the moment the first thread drops it, and then the sweep's reference is the last.
    let rounds = stressVolume(full: 2_000, quick: 150)
    let later = Later<AtomStore<Int, Probe>>()
    let released = Counter()
    let store = AtomStore<Int, Probe> { key in
      Probe(key) {
        released.increment()
        _ = later.value?.entryCount  // takes the store's lock: traps if it is held
      }
    }
    later.value = store
    let keys = Counter()
    let dropping = Switch()
    await onThreads(2) { thread in
      if thread == 0 {
        for _ in 0..<rounds {
          var held = (0..<100).map { _ in store.atom(for: keys.increment()) }
          while !held.isEmpty { held.removeLast() }
        }
        dropping.turnOn()
      } else {
        while !dropping.isArmed { _ = store.atom(for: keys.increment()) }
      }
    }
    #expect(released.value == keys.value)
  }

  @Test func keysStayApartWhateverTheirNames() {
    final class Named: Hashable, Sendable {  // equal by identity, whatever the name
      let name: String
      init(_ name: String) { self.name = name }
      static func == (lhs: Named, rhs: Named) -> Bool { lhs === rhs }
      func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
    let store = AtomStore<Named, String> { $0.name }
    let first = Named("same")
    let second = Named("same")
    #expect(store.atom(for: first) !== store.atom(for: second))
    let a = store.atom(for: first)
    #expect(store.atom(for: first) === a)
    // Two stores with equal keys share nothing.
    let other = AtomStore<Named, String> { $0.name }
    #expect(other.atom(for: first) !== a)
  }

  @Test func makeValueMayUseTheStore() {
    let store = Locked<AtomStore<Int, Int>?>(nil)
    let created = AtomStore<Int, Int> { key in
      key == 0 ? 0 : (store.withLock { $0 }?.atom(for: key - 1).value ?? 0) + 1
    }
    store.withLock { $0 = created }
    let holder = created.atom(for: 3)
    #expect(holder.value == 3)
  }

  @Test func theStoreDoesNotLeak() {
    weak var weakStore: AtomStore<Int, Int>?
    var atom: Atom<Int>?
    do {
      let store = AtomStore<Int, Int> { $0 }
      weakStore = store
      atom = store.atom(for: 1)
    }
    #expect(weakStore == nil)
    #expect(atom?.value == 1)  // an atom outlives its store
  }
}
