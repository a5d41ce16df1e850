import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite struct DerivedAtomTests {
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
}
