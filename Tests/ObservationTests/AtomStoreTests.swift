import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite struct AtomStoreTests {
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

  @Test func racingCallersAllGetTheOneStoredAtom() async {
    let store = AtomStore<Int, Int> { _ in 0 }
    let atoms = Recorder<ObjectIdentifier>()
    let held = Recorder<Atom<Int>>()
    await onThreads(8) { _ in
      let atom = store.atom(for: 1)
      held.record(atom)
      atoms.record(ObjectIdentifier(atom))
      atom.update { $0 += 1 }
    }
    #expect(Set(atoms.all).count == 1)
    #expect(store.atom(for: 1).value == 8)
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
