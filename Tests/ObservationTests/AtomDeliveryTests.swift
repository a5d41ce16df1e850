import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

/// Deliveries on one thread never nest: a delivery started from inside another one runs after
/// it, so chains of any length deliver and release in constant stack depth.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomDeliveryTests {
  @Test func anUpdateOfAnotherAtomFromInsideAWatcherIsDeliveredAfterTheCurrentDelivery() {
    let first = Atom(0)
    let second = Atom(0)
    let log = Recorder<String>()
    let tokens = [
      first.watch { change in
        log.record("first A \(change.new)")
        second.set(change.new * 10)
        log.record("second.set returned")
      },
      first.watch { log.record("first B \($0.new)") },
      second.watch { log.record("second \($0.new)") },
    ]
    first.set(1)
    #expect(
      log.all == ["first A 1", "second.set returned", "first B 1", "second 10"])
    #expect(second.value == 10)
    tokens.forEach { $0.cancel() }
  }

  @Test func aWatchStartedInsideAWatcherGetsItsInitialValueAfterTheCurrentDelivery() {
    let first = Atom(0)
    let second = Atom("now")
    let log = Recorder<String>()
    let started = Locked<[WatchToken]>([])
    let token = first.watch { _ in
      let inner = second.watch(includingInitial: true) { log.record("initial \($0.new)") }
      started.withLock { $0.append(inner) }
      log.record("watch returned")
    }
    first.set(1)
    #expect(log.all == ["watch returned", "initial now"])
    token.cancel()
  }

  @Test func outsideAnyDeliveryAnotherAtomsWatchersRunBeforeUpdateReturns() {
    let atom = Atom(0)
    let log = Recorder<String>()
    let token = atom.watch { log.record("delivered \($0.new)") }
    atom.set(1)
    log.record("set returned")
    #expect(log.all == ["delivered 1", "set returned"])
    token.cancel()
  }

  @Test func aChainOfWatchersThatUpdateTheNextAtomDeliversAndIsReleasedOnASmallStack() async {
    let links = stressVolume(full: 100_000, quick: 5_000)
    let result = Recorder<String>()
    await onSmallStack {
      let seen = Recorder<Int>()
      weak var weakEnd: Atom<Int>?
      var link: (atom: Atom<Int>, token: WatchToken)
      do {
        let end = Atom(0)
        weakEnd = end
        link = (end, end.watch { seen.record($0.new) })
      }
      for _ in 0..<links {
        let atom = Atom(0)
        let next = link  // each watcher holds the next atom and its watch
        link = (atom, atom.watch { change in next.atom.set(change.new + 1) })
      }
      link.atom.set(1)
      result.record("delivered \(seen.all == [links + 1])")
      link = (Atom(0), WatchToken {})  // releases the chain
      result.record("released \(weakEnd == nil)")
    }.opened()
    #expect(result.all == ["delivered true", "released true"])
  }

  @Test func aChainOfTokensHeldByHandlersIsReleasedOnASmallStack() async {
    let links = stressVolume(full: 100_000, quick: 5_000)
    let result = Recorder<String>()
    await onSmallStack {
      let atoms = (0...links).map { _ in Atom(0) }  // all held here: only the watches chain
      var token = atoms[0].watch { _ in }
      for index in 1...links {
        let next = token  // each handler holds the token of the watch before it
        token = atoms[index].watch { _ in _ = next }
      }
      token.cancel()  // cancels the whole chain, one watch releasing the next
      result.record("\(atoms.allSatisfy { $0.watcherCount == 0 })")
    }.opened()
    #expect(result.all == ["true"])
  }
}
