import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomTests {
  @Test func readsUpdatesAndSets() {
    let count = Atom(1)
    #expect(count.value == 1)
    #expect(count.update { $0 += 1 } == 2)
    count.set(10)
    #expect(count.value == 10)
    #expect(count.confirmedValue == 10)
  }

  @Test func aThrowingBodyChangesNothingAndRethrowsItsTypedError() {
    let list = Atom([1, 2])
    let recorder = Recorder<[Int]>()
    for watching in [false, true] {
      let token = watching ? list.watch { recorder.record($0.new) } : nil
      do throws(Oops) {
        try list.update { (value: inout [Int]) throws(Oops) in
          value.append(3)  // changed before the throw: must not stick
          throw Oops(code: 7)
        }
        Issue.record("expected a throw")
      } catch {
        #expect(error == Oops(code: 7))
      }
      #expect(list.value == [1, 2])
      token?.cancel()
    }
    #expect(recorder.all.isEmpty)
  }

  @Test(
    "compareAndSet",
    arguments: [
      ("Ada", "Ada", "Bob", true, "Bob"),
      ("Ada", "Eve", "Bob", false, "Ada"),
      ("", "", "", true, ""),
    ])
  func compareAndSet(
    start: String, expected: String, replacement: String, swaps: Bool, final: String
  ) {
    let name = Atom(start)
    let recorder = Recorder<AtomChange<String>>()
    let token = name.watch { recorder.record($0) }
    #expect(name.compareAndSet(expected: expected, to: replacement) == swaps)
    #expect(name.value == final)
    #expect(recorder.all.map(\.new) == (swaps ? [final] : []))  // no change when it fails
    token.cancel()
  }

  @Test func compareAndSetComparesAgainWhenTheAtomChangedDuringTheComparison() async {
    let inCompare = Gate()
    let release = Gate()
    let once = Once()
    let hook: @Sendable () -> Void = {
      guard once.first() else { return }
      inCompare.open()  // `==` runs outside the lock, and is held here…
      release.wait()
    }
    let atom = Atom(Compared(0, onCompare: hook))
    let swapped = Recorder<Bool>()
    let comparing = startThread {
      swapped.record(atom.compareAndSet(expected: Compared(0), to: Compared(1)))
    }
    await inCompare.opened()
    atom.set(Compared(5))  // …while the atom changes
    release.open()
    await comparing.opened()
    #expect(swapped.all == [false])  // compared again, with 5
    #expect(atom.value.id == 5)
  }

  @Test func compareAndSetsEqualityMayUseTheAtom() {
    let later = Later<Atom<Compared>>()
    let atom = Atom(Compared(0) { _ = later.value?.value })
    later.value = atom
    #expect(atom.compareAndSet(expected: Compared(0), to: Compared(1)))
    #expect(!atom.compareAndSet(expected: Compared(0), to: Compared(2)))
    #expect(atom.value.id == 1)
  }

  @Test func watchersSeeEveryChangeInOrderWithOldAndNew() {
    let name = Atom("")
    let recorder = Recorder<AtomChange<String>>()
    let token = name.watch { recorder.record($0) }
    name.set("A")
    name.update { $0 += "B" }
    name.set("AB")  // an equal value is still a change
    #expect(recorder.all.map(\.old) == ["", "A", "AB"])
    #expect(recorder.all.map(\.new) == ["A", "AB", "AB"])
    #expect(recorder.all.allSatisfy { !$0.isInitial && $0.error == nil })
    token.cancel()
  }

  @Test func everyWatcherGetsEachChangeBeforeTheNextChangeStarts() {
    let count = Atom(0)
    let log = Recorder<String>()
    let first = count.watch { log.record("first \($0.new)") }
    let second = count.watch { log.record("second \($0.new)") }
    count.set(1)
    count.set(2)
    #expect(log.all == ["first 1", "second 1", "first 2", "second 2"])
    _ = (first, second)
  }

  @Test func anInitialDeliveryComesFirstAndBeforeWatchReturns() {
    let name = Atom("Ada")
    let recorder = Recorder<AtomChange<String>>()
    let token = name.watch(includingInitial: true) { recorder.record($0) }
    #expect(recorder.count == 1)
    name.set("Bob")
    let changes = recorder.all
    #expect(changes.map(\.isInitial) == [true, false])
    #expect(changes.map(\.old) == ["Ada", "Ada"])
    #expect(changes.map(\.new) == ["Ada", "Bob"])
    token.cancel()
  }

  @Test func deliversOnTheCallersThreadWhenNobodyElseIsDelivering() async {
    let count = Atom(0)
    let threads = Recorder<ObjectIdentifier>()
    let token = count.watch { _ in threads.record(currentThread()) }
    let updaters = Recorder<ObjectIdentifier>()
    for _ in 0..<3 {
      await onNewThread {
        updaters.record(currentThread())
        count.update { $0 += 1 }
      }
    }
    #expect(threads.all == updaters.all)
    token.cancel()
  }

  @Test func aWatcherMayUpdateTheAtomItWatchesAndThatChangeComesAfter() {
    let count = Atom(0)
    let log = Recorder<String>()
    let first = count.watch { change in
      log.record("first \(change.old)→\(change.new)")
      if change.new == 1 {
        let returned = count.update { $0 += 1 }
        log.record("update returned \(returned)")
      }
    }
    let second = count.watch { log.record("second \($0.old)→\($0.new)") }
    count.set(1)
    #expect(
      log.all == [
        "first 0→1", "update returned 2", "second 0→1", "first 1→2", "second 1→2",
      ])
    #expect(count.value == 2)
    _ = (first, second)
  }

  @Test func anUpdateWhileAnotherThreadDeliversReturnsFirstAndIsDeliveredByThatThread() async {
    let count = Atom(0)
    let inFirstDelivery = Gate()
    let release = Gate()
    let log = Recorder<String>()
    let deliverers = Recorder<ObjectIdentifier>()
    let token = count.watch { change in
      deliverers.record(currentThread())
      log.record("delivered \(change.new)")
      if change.new == 1 {
        inFirstDelivery.open()
        release.wait()
      }
    }
    let firstThread = startThread { count.set(1) }
    await onNewThread {
      inFirstDelivery.wait()
      count.set(2)  // the other thread is delivering: queued, returns at once
      log.record("set(2) returned")
      release.open()
    }
    await firstThread.opened()  // it delivered 2 after 1 before its set(1) returned
    #expect(log.all == ["delivered 1", "set(2) returned", "delivered 2"])
    let threads = deliverers.all
    #expect(threads.count == 2 && threads[0] == threads[1])
    token.cancel()
  }

  @Test func aWatcherAddedWhileAChangeWaitsForDeliveryDoesNotGetIt() async {
    let count = Atom(0)
    let inDelivery = Gate()
    let release = Gate()
    let done = Gate()
    let early = Recorder<Int>()
    let late = Recorder<Int>()
    let blocker = count.watch { change in
      early.record(change.new)
      if change.new == 1 {
        inDelivery.open()
        release.wait()
      }
      if change.new == 3 { done.open() }
    }
    startThread { count.set(1) }
    await onNewThread {
      inDelivery.wait()
      count.set(2)  // took effect before `late` watches: `late` must not see it
    }
    let lateDone = Gate()
    let lateToken = count.watch { change in
      late.record(change.new)
      if change.new == 3 { lateDone.open() }
    }
    await onNewThread {
      count.set(3)
      release.open()
      done.wait()
      lateDone.wait()  // `late` gets 3 after `blocker` in the same delivery
    }
    #expect(early.all == [1, 2, 3])
    #expect(late.all == [3])
    _ = (blocker, lateToken)
  }

  @Test func cancellingStopsDeliveryAtOnceAndReleasingTheTokenCancels() {
    let count = Atom(0)
    let recorder = Recorder<Int>()
    let token = count.watch { recorder.record($0.new) }
    count.set(1)
    token.cancel()
    token.cancel()  // idempotent
    count.set(2)
    #expect(recorder.all == [1])
    #expect(token.isCancelled)
    #expect(count.watcherCount == 0)
    do {
      let released = count.watch { recorder.record($0.new) }
      _ = released
    }
    count.set(3)
    #expect(recorder.all == [1])
    #expect(count.watcherCount == 0)
  }

  @Test func aCallbackCanCancelItselfAndAnotherWatcherOfTheSameChange() {
    let count = Atom(0)
    let log = Recorder<String>()
    let tokens = Locked<[WatchToken]>([])
    let first = count.watch { change in
      log.record("first \(change.new)")
      tokens.withLock { $0.forEach { $0.cancel() } }  // cancels itself and the second
    }
    let second = count.watch { log.record("second \($0.new)") }
    tokens.withLock { $0 = [first, second] }
    count.set(1)
    count.set(2)
    #expect(log.all == ["first 1"])
    #expect(count.watcherCount == 0)
  }

  @Test func aCancelThatReturnsBeforeADeliveryReachesItsWatcherPreventsIt() async {
    let count = Atom(0)
    let inDelivery = Gate()
    let release = Gate()
    let log = Recorder<String>()
    let first = count.watch { change in
      log.record("first \(change.new)")
      inDelivery.open()
      release.wait()
    }
    let second = count.watch { log.record("second \($0.new)") }
    let delivering = startThread { count.set(1) }
    await onNewThread {
      inDelivery.wait()
      second.cancel()  // the change is on its way, but has not reached `second`
      release.open()
    }
    await delivering.opened()
    first.cancel()
    #expect(log.all == ["first 1"])
  }

  @Test func tokensDoNotKeepTheAtomOrTheHandlerAlive() {
    weak var weakAtom: Atom<Int>?
    weak var weakCaptured: Owner?
    var token: WatchToken?
    do {
      let atom = Atom(0)
      let captured = Owner()
      weakAtom = atom
      weakCaptured = captured
      token = atom.watch { _ in _ = captured.name }
    }
    #expect(weakAtom == nil)  // the token holds the atom weakly
    #expect(weakCaptured == nil)  // the atom's release released the handler
    token?.cancel()  // cancelling after the atom is gone is fine

    let atom = Atom(0)
    do {
      let captured = Owner()
      weakCaptured = captured
      token = atom.watch { _ in _ = captured.name }
    }
    #expect(weakCaptured != nil)
    token = nil
    #expect(weakCaptured == nil)  // releasing the token released the handler
  }

  @Test func touchingTheAtomFromItsOwnUpdateBodyTraps() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let atom = Atom(0)
      atom.update { $0 = atom.value + 1 }
    }
    #if os(Linux)
      // The message is the toolchain's: the atom's lock is the platform's own.
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("Recursive call to lock Mutex"))
    #endif
    await #expect(processExitsWith: .failure) {
      let atom = Atom(0)
      atom.update { _ in atom.set(1) }
    }
    await #expect(processExitsWith: .failure) {
      let atom = Atom(0)
      atom.update { _ in _ = atom.watch { _ in } }
    }
  }
}
