import Testing
import TinyInternals
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct TurnTests {
  @Test func theFirstActionRunsAndLaterOnesWaitInOrder() {
    var turn = Turn<String>()
    #expect(turn.begin("a") == "a")
    #expect(turn.isRunning)
    #expect(turn.begin("b") == nil)
    #expect(turn.begin("c") == nil)
    #expect(turn.finish() == "b")
    #expect(turn.finish() == "c")
    #expect(turn.isRunning)
    #expect(turn.finish() == nil)
    #expect(!turn.isRunning)
    #expect(turn.begin("d") == "d")
  }

  @Test func droppingTheWaitingActionsLeavesTheRunningOne() {
    var turn = Turn<String>()
    _ = turn.begin("a")
    _ = turn.begin("b")
    _ = turn.begin("c")
    #expect(turn.dropWaiting() == ["b", "c"])  // handed back, to release after the lock
    #expect(turn.isRunning)
    #expect(turn.waiting.isEmpty)
    #expect(turn.finish() == nil)
  }

  @Test func finishingWithNothingRunningIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) {
      var turn = Turn<String>()
      _ = turn.finish()
    }
  }
}
