import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit)) struct WatchableChangesTests {
  @Test func streamsEveryLaterChangeInOrder() async {
    let count = Atom(0)
    let stream = count.changes  // the watch starts here: later changes are buffered
    await onNewThread {
      for value in 1...5 { count.set(value) }
    }
    var seen: [Int] = []
    for await change in stream {
      seen.append(change.new)
      if change.new == 5 { break }
    }
    #expect(seen == [1, 2, 3, 4, 5])
  }

  @Test func breakingOutOfTheLoopStopsTheWatch() async {
    let count = Atom(0)
    do {
      let stream = count.changes
      count.set(1)
      for await _ in stream { break }
    }
    #expect(count.watcherCount == 0)
  }

  @Test func cancellingTheTaskStopsTheWatch() async {
    let count = Atom(0)
    let watching = Gate()
    let started = Gate()
    let task = Task {
      let stream = count.changes  // watches from here on
      watching.open()
      var seen = 0
      for await _ in stream {
        seen += 1
        started.open()
      }
      return seen
    }
    let token = count.watch { _ in }  // a second watcher, to tell the stream's apart
    await watching.opened()
    #expect(count.watcherCount == 2)
    count.set(1)
    await started.opened()
    task.cancel()
    #expect(await value(of: task) == 1)
    #expect(count.watcherCount == 1)
    token.cancel()
  }

  @Test func aStreamKeptInAVariableKeepsWatchingAfterBreakUntilItIsReleased() async {
    let count = Atom(0)
    var stream: AsyncStream<AtomChange<Int>>? = count.changes
    count.set(1)
    for await _ in stream! { break }
    #expect(count.watcherCount == 1)  // the variable still holds the stream: still watching
    count.set(2)  // buffered
    var next: [Int] = []
    for await change in stream! {
      next.append(change.new)
      break
    }
    #expect(next == [2])
    stream = nil
    #expect(count.watcherCount == 0)
  }

  @Test func anIteratorKeepsTheWatchAfterItsStreamIsReleased() async {
    let count = Atom(0)
    var iterator: AsyncStream<AtomChange<Int>>.Iterator? = count.changes.makeAsyncIterator()
    count.set(1)
    #expect(await iterator?.next()?.new == 1)
    #expect(count.watcherCount == 1)
    iterator = nil
    #expect(count.watcherCount == 0)
  }

  @Test func theStreamFinishesAfterTheBufferedChangesWhenTheAtomIsReleased() async {
    var count: Atom<Int>? = Atom(0)
    let stream = count!.changes
    count!.set(1)
    count!.set(2)
    count = nil  // the atom releases the watch: the stream finishes after 1 and 2
    var seen: [Int] = []
    for await change in stream { seen.append(change.new) }
    #expect(seen == [1, 2])
  }

  @Test func aDerivedAtomsStreamFinishesWhenItIsReleased() async {
    let source = Atom(1)
    var derived: DerivedAtom<Int>? = DerivedAtom(source) { $0 * 10 }
    let stream = derived!.changes
    source.set(2)
    derived = nil
    var seen: [Int] = []
    for await change in stream { seen.append(change.new) }
    #expect(seen == [20])
    #expect(source.watcherCount == 0)
  }

  @Test func bufferedChangesAreReleasedOutsideTheAtomsLockWhenTheStreamEnds() async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<Int>()
    let atom = Atom(Probe(0))
    later.value = atom
    do {
      let stream = atom.changes
      atom.set(Probe(1) { log.record(later.value?.value.id ?? -1) })
      atom.set(Probe(2))
      _ = stream  // released with its buffer: the probe's deinit reads the atom
    }
    #expect(log.all == [2])
    #expect(atom.watcherCount == 0)
  }
}
