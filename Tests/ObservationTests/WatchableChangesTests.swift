import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WatchableChangesTests {
  @Test func streamsEveryChangeAfterTheIteratorIsMadeInOrder() async {
    let count = Atom(0)
    let changes = count.changes
    count.set(-1)  // before any iterator: no watch yet
    #expect(count.watcherCount == 0)
    var iterator = changes.makeAsyncIterator()  // the watch starts here
    await onNewThread {
      for value in 1...5 { count.set(value) }
    }
    var seen: [Int] = []
    while let change = await iterator.next() {
      seen.append(change.new)
      if change.new == 5 { break }
    }
    #expect(seen == [1, 2, 3, 4, 5])
  }

  /// An atom seen through ``Watchable``, that opens a gate each time a watch starts: a loop's
  /// watch starts inside `for await`, where the test cannot signal.
  final class Announced: Watchable {
    let atom = Atom(0)
    let watched = Gate()

    var value: Int { atom.value }

    func watch(
      includingInitial: Bool, _ handler: @escaping @Sendable (AtomChange<Int>) -> Void
    ) -> WatchToken {
      defer { watched.open() }
      return atom.watch(includingInitial: includingInitial, handler)
    }

    func watchOnMain(
      includingInitial: Bool, _ handler: @escaping @MainActor @Sendable (AtomChange<Int>) -> Void
    ) -> WatchToken {
      atom.watchOnMain(includingInitial: includingInitial, handler)
    }
  }

  /// The ways a `for await` loop ends besides cancellation.
  enum Ending: CaseIterable, Sendable {
    case breaking, returning, throwing

    /// Loops over `stream` and ends the loop this way at the first change; returns the changes
    /// the loop saw.
    func loop(over stream: AtomChanges<Int>) async -> [Int] {
      var seen: [Int] = []
      do {
        switch self {
        case .breaking:
          for await change in stream {
            seen.append(change.new)
            break
          }
        case .returning:
          seen = await first(of: stream)
        case .throwing:
          for await change in stream {
            seen.append(change.new)
            throw Oops(code: 1)
          }
        }
      } catch {}
      return seen
    }

    private func first(of stream: AtomChanges<Int>) async -> [Int] {
      for await change in stream { return [change.new] }
      return []
    }
  }

  @Test(arguments: Ending.allCases)
  func endingTheLoopStopsTheWatchWhileTheSequenceIsStillHeld(_ ending: Ending) async {
    let source = Announced()
    let stream = source.changes  // held until the end of the test
    let setter = startThread {
      source.watched.wait()  // the loop's watch runs
      source.atom.set(1)
    }
    let seen = await ending.loop(over: stream)
    await setter.opened()
    #expect(seen == [1])
    #expect(source.atom.watcherCount == 0)  // the loop ended: its watch stopped
    _ = stream
  }

  @Test func cancellingTheTaskStopsTheWatchWhileItsIteratorIsStillHeld() async {
    let count = Atom(0)
    let watching = Gate()
    let started = Gate()
    let task = Task {
      var iterator = count.changes.makeAsyncIterator()  // watches from here on
      watching.open()
      var seen = 0
      while await iterator.next() != nil {
        seen += 1
        started.open()
      }
      let stillWatched = count.watcherCount  // the iterator still exists here
      _ = iterator
      return (seen, stillWatched)
    }
    let token = count.watch { _ in }  // a second watcher, to tell the loop's apart
    await watching.opened()
    #expect(count.watcherCount == 2)
    count.set(1)
    await started.opened()
    task.cancel()
    let (seen, stillWatched) = await value(of: task)
    #expect(seen == 1)
    #expect(stillWatched == 1)
    #expect(count.watcherCount == 1)
    token.cancel()
  }

  @Test func aTaskCancelledBeforeItIteratesGetsNothingAndWatchesNothing() async {
    let count = Atom(0)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      var iterator = count.changes.makeAsyncIterator()
      count.set(1)
      let next = await iterator.next()
      return (next == nil, count.watcherCount)
    }
    let (ended, watchers) = await value(of: task)
    #expect(ended)
    #expect(watchers == 0)
  }

  @Test func eachIterationWatchesOnItsOwn() async {
    let count = Atom(0)
    let stream = count.changes
    var first = stream.makeAsyncIterator()
    var second = stream.makeAsyncIterator()
    #expect(count.watcherCount == 2)
    count.set(1)
    #expect(await first.next()?.new == 1)
    #expect(await second.next()?.new == 1)
  }

  @Test func theIterationEndsAfterTheBufferedChangesWhenTheAtomIsReleased() async {
    var count: Atom<Int>? = Atom(0)
    var iterator = count!.changes.makeAsyncIterator()
    count!.set(1)
    count!.set(2)
    count = nil  // the atom releases the watch: the iteration ends after 1 and 2
    var seen: [Int] = []
    while let change = await iterator.next() { seen.append(change.new) }
    #expect(seen == [1, 2])
  }

  @Test func aDerivedAtomsIterationEndsWhenItIsReleased() async {
    let source = Atom(1)
    var derived: DerivedAtom<Int>? = DerivedAtom(source) { $0 * 10 }
    var iterator = derived!.changes.makeAsyncIterator()
    source.set(2)
    derived = nil
    var seen: [Int] = []
    while let change = await iterator.next() { seen.append(change.new) }
    #expect(seen == [20])
    #expect(source.watcherCount == 0)
  }

  @Test func bufferedChangesAreReleasedOutsideTheAtomsLockWhenTheIteratorIsReleased() {
    let later = Later<Atom<Probe>>()
    let log = Recorder<Int>()
    let atom = Atom(Probe(0))
    later.value = atom
    do {
      let iterator = atom.changes.makeAsyncIterator()
      atom.set(Probe(1) { log.record(later.value?.value.id ?? -1) })
      atom.set(Probe(2))
      _ = iterator  // released with its buffer: the probe's deinit reads the atom
    }
    #expect(log.all == [2])
    #expect(atom.watcherCount == 0)
  }

  @Test func changesDroppedByCancellationAreReleasedOutsideTheBuffersLock() async {
    let later = Later<Atom<Probe>>()
    let reentered = Counter()
    let atom = Atom(Probe(0))
    later.value = atom
    let task = Task {
      var iterator = atom.changes.makeAsyncIterator()
      // Buffered, and released when cancellation drops the buffer: its deinit sets the atom,
      // whose change reaches this iteration's buffer again.
      atom.set(
        Probe(1) {
          reentered.increment(); later.value?.set(Probe(2))
        })
      atom.set(Probe(3))
      withUnsafeCurrentTask { $0?.cancel() }
      return await iterator.next() == nil
    }
    #expect(await value(of: task))
    #expect(reentered.value == 1)
    #expect(atom.value.id == 2)
    #expect(atom.watcherCount == 0)
  }
}
