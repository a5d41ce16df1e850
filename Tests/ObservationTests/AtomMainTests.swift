import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

/// `watchOnMain`. Swift Testing runs `@MainActor` tests on the main queue (on Linux, a worker
/// thread drains it). To make changes "elsewhere" while deliveries are still queued, a test
/// blocks the main queue until another thread has made them (`startThread { … }.wait()`);
/// `mainQueueTurn()` then lets the queued deliveries run.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) @MainActor struct AtomMainTests {
  @Test func aChangeMadeOnTheMainQueueIsDeliveredBeforeUpdateReturns() {
    let name = Atom("")
    var seen: [String] = []
    let token = name.watchOnMain { seen.append($0.new) }
    name.set("Ada")
    #expect(seen == ["Ada"])
    name.update { $0 += "!" }
    #expect(seen == ["Ada", "Ada!"])
    token.cancel()
  }

  @Test func theInitialValueIsDeliveredBeforeWatchOnMainReturns() {
    let name = Atom("Ada")
    var seen: [AtomChange<String>] = []
    let token = name.watchOnMain(includingInitial: true) { seen.append($0) }
    #expect(seen.map(\.isInitial) == [true])
    #expect(seen.map(\.new) == ["Ada"])
    token.cancel()
  }

  @Test func theInitialValueOfAWatchStartedElsewhereArrivesOnTheMainQueue() async {
    let name = Atom("Ada")
    let onMain = Recorder<Bool>()
    let tokens = Recorder<WatchToken>()
    startThread {
      tokens.record(
        name.watchOnMain(includingInitial: true) { _ in onMain.record(MainQueue.isCurrent) })
    }.wait()
    #expect(onMain.all == [])  // queued: this test holds the main queue
    await mainQueueTurn()
    #expect(onMain.all == [true])
    tokens.all.forEach { $0.cancel() }
  }

  @Test func changesMadeElsewhereArriveOnTheMainQueueInOrder() async {
    let count = Atom(0)
    let seen = Recorder<Int>()
    let onMain = Recorder<Bool>()
    let token = count.watchOnMain { change in
      seen.record(change.new)
      onMain.record(MainQueue.isCurrent)
    }
    startThread {
      for _ in 0..<100 { count.update { $0 += 1 } }
    }.wait()
    #expect(seen.count == 0)  // nothing ran yet: this test holds the main queue
    await mainQueueTurn()
    #expect(seen.all == Array(1...100))
    #expect(onMain.all.allSatisfy { $0 })
    token.cancel()
  }

  @Test func aChangeOnTheMainQueueWaitsBehindEarlierChangesStillQueued() async {
    let count = Atom(0)
    let seen = Recorder<Int>()
    let token = count.watchOnMain { seen.record($0.new) }
    startThread { count.set(1) }.wait()
    count.set(2)  // 1 still waits for the main queue: 2 must not overtake it
    #expect(seen.all.isEmpty)
    await mainQueueTurn()
    #expect(seen.all == [1, 2])
    count.set(3)  // nothing waits any more: synchronous again
    #expect(seen.all == [1, 2, 3])
    token.cancel()
  }

  @Test func cancellingDropsChangesStillQueuedForTheMainQueue() async {
    let count = Atom(0)
    let seen = Recorder<Int>()
    let token = count.watchOnMain { seen.record($0.new) }
    startThread {
      count.set(1)
      count.set(2)
    }.wait()
    token.cancel()
    await mainQueueTurn()
    #expect(seen.all.isEmpty)
    #expect(count.watcherCount == 0)
  }

  @Test func cancellingReleasesTheValuesOfChangesStillQueuedAtOnce() {
    // The queued changes hold their values; cancelling drops them then, not when the main
    // queue next runs (this test holds it).
    let released = Counter()
    let atom = Atom<Releasing?>(nil)
    let token = atom.watchOnMain { _ in }
    startThread {
      atom.set(Releasing(released))
      atom.set(nil)
    }.wait()
    #expect(released.value == 0)  // the two queued changes hold it
    token.cancel()
    #expect(released.value == 1)
  }

  @Test func aHandlerThatUpdatesTheAtomSeesThatChangeAfterItReturns() {
    let count = Atom(0)
    var log: [String] = []
    let token = count.watchOnMain { change in
      log.append("start \(change.new)")
      if change.new == 1 { count.set(2) }
      log.append("end \(change.new)")
    }
    count.set(1)
    #expect(log == ["start 1", "end 1", "start 2", "end 2"])
    token.cancel()
  }

  @Test func aHandlerCanCancelItsOwnWatch() async {
    let count = Atom(0)
    let seen = Recorder<Int>()
    let holder = Locked<WatchToken?>(nil)
    let token = count.watchOnMain { change in
      seen.record(change.new)
      holder.withLock { $0?.cancel() }
    }
    holder.withLock { $0 = token }
    await onNewThread {
      count.set(1)
      count.set(2)
    }
    await mainQueueTurn()
    #expect(seen.all == [1])
  }
}

/// A value that counts its release.
private final class Releasing: Sendable {
  let released: Counter

  init(_ released: Counter) {
    self.released = released
  }

  deinit {
    released.increment()
  }
}
