import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DerivedAtomTests {
  @Test func computesFromItsSourcesAndFollowsThem() {
    let username = Atom("")
    let password = Atom("")
    let canLogin = DerivedAtom(username, password) { user, secret in
      !user.isEmpty && !secret.isEmpty
    }
    #expect(canLogin.value == false)
    username.set("ada")
    #expect(canLogin.value == false)
    password.set("secret")
    #expect(canLogin.value == true)
  }

  @Test func anEqualEquatableValueDeliversNothing() {
    let username = Atom("")
    let password = Atom("")
    let canLogin = DerivedAtom(username, password) { !$0.isEmpty && !$1.isEmpty }
    let seen = Recorder<AtomChange<Bool>>()
    let token = canLogin.watch { seen.record($0) }
    username.set("ada")  // still false
    password.set("secret")  // true
    password.set("secret2")  // still true
    username.set("")  // false
    #expect(seen.all.map(\.new) == [true, false])
    #expect(seen.all.map(\.old) == [false, true])
    token.cancel()
  }

  @Test func anEqualValueIsNotDeliveredWhenAnotherRecomputationWasShownMeanwhile() async {
    // Two sources change on two threads at once: the first recomputation is shown while the
    // second computes, so the second compares its result with the first one's, and both are
    // equal to the value before.
    let (first, second) = (Atom(0), Atom(0))
    let calls = Counter()
    let (entered, go) = ([Gate(), Gate()], [Gate(), Gate()])
    let total = DerivedAtom(first, second) { a, b in
      let call = calls.increment()
      if call >= 3 {  // the two after the initial computations
        entered[call - 3].open()
        go[call - 3].wait()
      }
      return (a + b) / 10
    }
    let seen = Recorder<AtomChange<Int>>()
    let token = total.watch { seen.record($0) }
    let one = startThread { first.set(1) }
    await entered[0].opened()
    let two = startThread { second.set(1) }
    await entered[1].opened()
    go[0].open()
    await one.opened()
    go[1].open()
    await two.opened()
    #expect(seen.all.map(\.new) == [])
    #expect(total.value == 0)
    token.cancel()
  }

  struct Box {  // not Equatable: every recomputation is a change
    let length: Int
  }

  @Test func aValueThatIsNotEquatableDeliversEveryRecomputation() {
    let text = Atom("abc")
    let length = DerivedAtom(text) { Box(length: $0.count) }
    let seen = Recorder<Int>()
    let token = length.watch { seen.record($0.new.length) }
    text.set("xyz")
    text.set("hello")
    #expect(seen.all == [3, 5])
    token.cancel()
  }

  @Test func takesAnyNumberOfSourcesOfAnyWatchableKind() {
    let a = Atom(1)
    let b = Atom("two")
    let c = Atom(3.0)
    let sum = DerivedAtom(a, c) { $0 + Int($1) }
    let all = DerivedAtom(a, b, c, sum) { "\($0) \($1) \($2) \($3)" }
    let constant = DerivedAtom { 42 }
    let single = DerivedAtom(b) { $0.uppercased() }
    #expect(all.value == "1 two 3.0 4")
    a.set(10)
    #expect(all.value == "10 two 3.0 13")
    #expect(constant.value == 42)
    #expect(single.value == "TWO")
  }

  @Test func deliversInitialValuesAndOnTheMainQueue() async {
    let a = Atom(1)
    let doubled = DerivedAtom(a) { $0 * 2 }
    let seen = Recorder<AtomChange<Int>>()
    let token = doubled.watch(includingInitial: true) { seen.record($0) }
    #expect(seen.all.map(\.isInitial) == [true])
    #expect(seen.all.map(\.new) == [2])
    let onMain = Recorder<Int>()
    let mainToken = doubled.watchOnMain { onMain.record($0.new) }
    await onNewThread { a.set(5) }
    await mainQueueTurn()
    #expect(onMain.all == [10])
    _ = (token, mainToken)
  }

  @Test func carriesTheErrorOfASourcesRollback() async {
    let stars = Atom(0)
    let label = DerivedAtom(stars) { "\($0) stars" }
    let seen = Recorder<AtomChange<String>>()
    let token = label.watch { seen.record($0) }
    await #expect(throws: Oops(code: 9)) {
      try await stars.update(optimistically: { $0 += 1 }) { _ in throw Oops(code: 9) }
    }
    #expect(seen.all.map(\.new) == ["1 stars", "0 stars"])
    #expect(seen.all.map { $0.error as? Oops } == [nil, Oops(code: 9)])
    token.cancel()
  }

  @Test func aDerivedWatcherMayUpdateASourceWithoutDeadlock() {
    let count = Atom(0)
    let isOdd = DerivedAtom(count) { $0 % 2 == 1 }
    let seen = Recorder<Bool>()
    let token = isOdd.watch { change in
      seen.record(change.new)
      if change.new { count.update { $0 += 1 } }  // make it even again
    }
    count.set(1)
    #expect(count.value == 2)
    #expect(seen.all == [true, false])
    token.cancel()
  }

  @Test func concurrentSourceChangesEndWithTheLatestValues() async {
    let a = Atom(0)
    let b = Atom(0)
    let sum = DerivedAtom(a, b) { $0 + $1 }
    await onThreads(4) { index in
      let source = index.isMultiple(of: 2) ? a : b
      for _ in 0..<2_000 { source.update { $0 += 1 } }
    }
    #expect(sum.value == 8_000)
  }

  @Test func sourcesDoNotKeepTheDerivedAtomAlive() {
    let source = Atom(1)
    weak var weakDerived: DerivedAtom<Int>?
    do {
      let derived = DerivedAtom(source) { $0 + 1 }
      weakDerived = derived
      #expect(source.watcherCount == 1)
    }
    #expect(weakDerived == nil)
    #expect(source.watcherCount == 0)  // its watch stopped with it
    source.set(2)  // nothing to recompute
  }

  @Test func aDerivedAtomKeepsItsSourcesButNoCycle() {
    weak var weakSource: Atom<Int>?
    weak var weakDerived: DerivedAtom<Int>?
    var derived: DerivedAtom<Int>?
    do {
      let source = Atom(1)
      weakSource = source
      derived = DerivedAtom(source) { $0 * 3 }
      weakDerived = derived
    }
    #expect(weakSource != nil)  // the derived atom reads it
    #expect(derived?.value == 3)
    derived = nil
    #expect(weakDerived == nil)
    #expect(weakSource == nil)
  }

  @Test(
    "an older recomputation finishing last is dropped, not shown",
    arguments: [true, false])
  func olderRecomputationFinishingLast(equatable: Bool) async {
    let a = Atom(0)
    let b = Atom(0)
    let inCompute = Gate()
    let release = Gate()
    let blockOnce = Once()
    let compute: @Sendable (Int, Int) -> Int = { x, y in
      if (x, y) == (1, 0), blockOnce.first() {
        inCompute.open()  // the older recomputation read (1, 0) and is still computing…
        release.wait()
      }
      return x + y
    }
    // An Equatable value is compared before it is shown; a Box is shown without comparing.
    let seen = Recorder<Int>()
    let read: @Sendable () -> Int
    let token: WatchToken
    if equatable {
      let sum = DerivedAtom(a, b) { compute($0, $1) }
      token = sum.watch { seen.record($0.new) }
      read = { sum.value }
    } else {
      let sum = DerivedAtom(a, b) { Box(length: compute($0, $1)) }
      token = sum.watch { seen.record($0.new.length) }
      read = { sum.value.length }
    }
    let older = startThread { a.set(1) }
    await inCompute.opened()
    await onNewThread { b.set(1) }  // …while a newer one reads (1, 1) and shows 2
    #expect(read() == 2)
    release.open()
    await older.opened()  // the older result, 1, came last: dropped
    #expect(read() == 2)
    #expect(seen.all == [2])
    token.cancel()
  }

  @Test func aComparisonOvertakenByAnOlderResultIsMadeAgain() async {
    let a = Atom(0)
    let b = Atom(0)
    let inCompute = Gate()
    let releaseCompute = Gate()
    let inCompare = Gate()
    let releaseCompare = Gate()
    let armed = Switch()
    let once = Once()
    let compare: @Sendable (Int, Int) -> Void = { lhs, rhs in
      // The newer recomputation compares its 0 with the shown 0 and is held here…
      guard (lhs, rhs) == (0, 0), armed.isArmed && once.first()
      else { return }
      inCompare.open()
      releaseCompare.wait()
    }
    let blockCompute = Once()
    let difference = DerivedAtom(a, b) { x, y in
      if (x, y) == (1, 0), blockCompute.first() {
        inCompute.open()
        releaseCompute.wait()
      }
      return Compared(x - y) { compare(x - y, 0) }
    }
    armed.turnOn()
    let seen = Recorder<Int>()
    let token = difference.watch { seen.record($0.new.id) }
    let older = startThread { a.set(1) }  // reads (1, 0): 1, held in compute
    await inCompute.opened()
    let newer = startThread { b.set(1) }  // reads (1, 1): 0, equal to the shown 0…
    await inCompare.opened()
    releaseCompute.open()
    await older.opened()  // …but the older 1 is shown before the newer one commits
    #expect(difference.value.id == 1)
    releaseCompare.open()
    await newer.opened()  // so the newer one compares again, with 1, and shows its 0
    #expect(difference.value.id == 0)
    #expect(seen.all == [1, 0])
    token.cancel()
  }

  @Test func equalityRunsOutsideEveryLockAndMayReadTheDerivedAtom() {
    let source = Atom(1)
    let later = Later<DerivedAtom<Compared>>()
    let reads = Counter()
    let derived = DerivedAtom(source) { value in
      Compared(value % 2) {
        _ = later.value?.value  // `==` reads the derived atom it compares for
        reads.increment()
      }
    }
    later.value = derived
    let seen = Recorder<Int>()
    let token = derived.watch { seen.record($0.new.id) }
    source.set(3)  // still odd: equal, nothing delivered
    source.set(4)
    #expect(seen.all == [0])
    #expect(reads.value >= 2)
    token.cancel()
  }

  @Test func computeRunsOutsideEveryLockAndMayUpdateASourceWhichRecomputesAfter() {
    let count = Atom(0)
    let even = DerivedAtom(count) { value in
      if value % 2 == 1 { count.update { $0 += 1 } }  // make it even: another change, after
      return value
    }
    let seen = Recorder<Int>()
    let token = even.watch { seen.record($0.new) }
    count.set(1)
    #expect(count.value == 2)
    #expect(even.value == 2)
    #expect(seen.all == [1, 2])
    token.cancel()
  }

  @Test(
    "a replaced derived value's deinit may use the derived atom",
    arguments: [false, true])
  func replacedValueDeinit(watching: Bool) {
    let source = Atom(0)
    let later = Later<DerivedAtom<Probe>>()
    let log = Recorder<Int>()
    let derived = DerivedAtom(source) { value in
      Probe(value) {
        guard let derived = later.value else { return }
        log.record(derived.value.id)  // reads the derived atom that released it
        derived.watch(includingInitial: true) { _ in }.cancel()
      }
    }
    later.value = derived
    let token = watching ? derived.watch { _ in } : nil
    source.set(1)  // releases the probe made from 0
    source.set(2)
    #expect(log.all == [1, 2])
    token?.cancel()
  }

  @Test(arguments: [1, 2])
  func aChangeOfTheSourceBetweenTheFirstReadAndTheWatchIsNotMissed(sources: Int) {
    // The first computation changes the source: the derived atom's watch is not in place yet,
    // so only the recomputation once it is catches that change. One source and several go
    // through two initializers.
    let source = Atom(1)
    let other = Atom(0)
    let calls = Counter()
    let derived =
      sources == 1
      ? DerivedAtom(source) { value in
        if calls.increment() == 1 { source.set(2) }
        return value * 10
      }
      : DerivedAtom(source, other) { value, extra in
        if calls.increment() == 1 { source.set(2) }
        return value * 10 + extra
      }
    #expect(derived.value == 20)
    source.set(3)
    #expect(derived.value == 30)
  }

  @Test func computesCapturesMayUseTheSourcesWhenTheDerivedAtomIsReleased() {
    let source = Atom(0)
    do {
      let guardian = OnDeinit { source.set(source.value + 10) }
      let derived = DerivedAtom(source) { value in
        _ = guardian
        return value
      }
      #expect(derived.value == 0)
    }
    #expect(source.value == 10)
    #expect(source.watcherCount == 0)
  }

  @Test func aLongChainOfDerivedAtomsIsMadeDeliveredAndReleasedOnASmallStack() async {
    let links = stressVolume(full: 100_000, quick: 5_000)
    let result = Recorder<String>()
    await onSmallStack {
      let source = Atom(0)
      weak var weakFirst: DerivedAtom<Int>?
      var last = DerivedAtom(source) { $0 + 1 }
      weakFirst = last
      for _ in 1..<links {
        last = DerivedAtom(last) { $0 + 1 }
      }
      let seen = Recorder<Int>()
      let token = last.watch { seen.record($0.new) }
      source.set(1)
      result.record("delivered \(seen.all == [links + 1])")
      token.cancel()
      last = DerivedAtom { 0 }  // releases the chain
      result.record("released \(weakFirst == nil && source.watcherCount == 0)")
    }.opened()
    #expect(result.all == ["delivered true", "released true"])
  }
}
