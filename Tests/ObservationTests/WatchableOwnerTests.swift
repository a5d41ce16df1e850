import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WatchableOwnerTests {
  @Test func deliversTheOwnerAndTheChange() {
    let name = Atom("")
    let owner = Owner("label")
    let seen = Recorder<String>()
    name.watch(owner: owner) { owner, change in seen.record("\(owner.name): \(change.new)") }
    name.set("Ada")
    #expect(seen.all == ["label: Ada"])
    name.watch(owner: owner, includingInitial: true) { _, change in
      seen.record("initial \(change.isInitial)")
    }
    #expect(seen.all == ["label: Ada", "initial true"])
  }

  @Test func stopsOnceTheOwnerIsGoneAndReleasesTheHandler() {
    let name = Atom("")
    let seen = Recorder<String>()
    weak var weakOwner: Owner?
    weak var weakCaptured: Owner?
    do {
      let owner = Owner()
      let captured = Owner("captured")
      weakOwner = owner
      weakCaptured = captured
      name.watch(owner: owner) { _, change in seen.record("\(captured.name) \(change.new)") }
      name.set("A")
    }
    #expect(weakOwner == nil)  // the watch does not keep the owner alive
    #expect(name.watcherCount == 1)  // nothing tells the atom yet
    name.set("B")  // the owner is gone: no call, and the watch goes
    #expect(seen.all == ["captured A"])
    #expect(name.watcherCount == 0)
    #expect(weakCaptured == nil)
  }

  @Test func anOwnerBoundWatchDoesNotKeepTheAtomAlive() {
    weak var weakAtom: Atom<Int>?
    let owner = Owner()
    do {
      let atom = Atom(0)
      weakAtom = atom
      atom.watch(owner: owner) { _, _ in }
    }
    #expect(weakAtom == nil)
  }

  @Test func aKeeperCancelsATokenThatArrivesAfterTheCancel() {
    let keeper = TokenKeeper()
    let cancelled = Recorder<Bool>()
    keeper.cancel()
    // The test holds the token, so only the keeper can have cancelled it.
    let token = WatchToken { cancelled.record(true) }
    keeper.keep(token)
    withExtendedLifetime(token) {
      #expect(cancelled.all == [true])
    }
  }
}
