import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WatchTokenTests {
  @Test func runsItsCancellationExactlyOnce() async {
    let runs = Recorder<Int>()
    let token = WatchToken { runs.record(1) }
    #expect(!token.isCancelled)
    await onThreads(8) { _ in token.cancel() }
    #expect(token.isCancelled)
    #expect(runs.count == 1)
  }

  @Test func releasingAnUncancelledTokenCancels() {
    let runs = Recorder<Int>()
    do {
      let token = WatchToken { runs.record(1) }
      _ = token
    }
    #expect(runs.count == 1)
    do {
      let token = WatchToken { runs.record(2) }
      token.cancel()
    }
    #expect(runs.all == [1, 2])  // not again on release
  }

  @Test func theCancellationsCapturesMayUseTheTokenAndTheAtomWhenReleased() {
    let count = Atom(0)
    let other = count.watch { _ in }
    let log = Recorder<String>()
    let started = Locked<WatchToken?>(nil)
    do {
      // Made in a closure, so that the token's closure holds the only reference to it.
      let token = {
        let guardian = OnDeinit {
          other.cancel()
          let watch = count.watch(includingInitial: true) { log.record("watched \($0.new)") }
          started.withLock { $0 = watch }
          log.record("deinit")
        }
        return WatchToken { _ = guardian }
      }()
      token.cancel()
      #expect(log.all.isEmpty)  // the closure ran; it is released with the token
    }
    // Released one link after another, like a chain: the initial value of the watch the deinit
    // started is delivered once the deinit returns, before the release does.
    #expect(log.all == ["deinit", "watched 0"])
    started.withLock { $0.take() }?.cancel()
    #expect(count.watcherCount == 0)
  }

  @Test func cancellingOnAnotherThreadWhileTheWatchDeliversStopsTheNextDelivery() async {
    let count = Atom(0)
    let inDelivery = Gate()
    let release = Gate()
    let seen = Recorder<Int>()
    let token = count.watch { change in
      seen.record(change.new)
      if change.new == 1 {
        inDelivery.open()
        release.wait()
      }
    }
    let delivering = startThread {
      count.set(1)
      count.set(2)
    }
    await inDelivery.opened()
    await onNewThread { token.cancel() }  // returns while 1 is still being delivered
    release.open()
    await delivering.opened()
    #expect(seen.all == [1])  // 2 did not start
  }
}
