import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite struct WatchTokenTests {
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
}
