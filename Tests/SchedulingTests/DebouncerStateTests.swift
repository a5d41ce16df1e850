import Testing
import TinyTestSupport

@testable import TinyScheduling

/// The debouncer's pure state machine, step by step, in the tokens of `run(_:on:)`
/// (Support/MachineScript.swift); `R` is a launcher restart.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DebouncerStateTests {
  @Test(
    arguments: [
      ("", ""),
      ("|", ""),
      ("C", ""),
      ("F", "f"),
      // An action waits; the launcher starts, and every later action restarts it.
      ("a", "S"),
      ("a b c", "S R R"),
      // The first tick after the latest action runs it and stops the launcher.
      ("a |", "S X a"),
      ("a b c |", "S R R X c"),
      ("a | |", "S X a"),
      ("a | b |", "S X a S X b"),
      // Cancel drops the waiting action.
      ("a C", "S X"),
      ("a C |", "S X"),
      ("a C b |", "S X S X b"),
      // Flush runs it now and stops the launcher.
      ("a F", "S X a"),
      ("a F |", "S X a"),
      ("a F F", "S X a f"),
      ("a b F", "S R X b"),
    ] as [(String, String)])
  func stepsInOneThread(script: String, expected: String) {
    #expect(run(script, on: DebouncerState<String>.self) == expected)
  }

  @Test(
    "while an action runs, ticks are skipped and nothing else starts",
    arguments: [
      ("a* | b |", "S X a S"),
      ("a* | b | D", "S X a S"),
      ("a* | b | D |", "S X a S X b"),
      ("a* | b F", "S X a S X"),
      ("a* | b F D", "S X a S X b"),
      ("a* | b C D", "S X a S X"),
      ("a* | b F c F D", "S X a S X S X b c"),
    ] as [(String, String)])
  func stepsWhileAnActionRuns(script: String, expected: String) {
    #expect(run(script, on: DebouncerState<String>.self) == expected)
  }

  @Test func handsBackEveryActionItDropsWithoutRunningIt() {
    var state = DebouncerState<String>()
    #expect(state.execute("a").dropped == nil)
    #expect(state.execute("b").dropped == "a")  // replaces a
    #expect(state.tick().run == "b")  // runs, and stays running in this test
    _ = state.execute("c")
    #expect(state.flush().step.run == nil)  // c waits for b
    _ = state.execute("d")
    let cancel = state.cancel()
    #expect(cancel.dropped == "d")
    #expect(cancel.droppedWaiting == ["c"])
    #expect(cancel.launcher == .stop)
    #expect(state.finish() == nil)
    let idle = state.cancel()
    #expect(idle.dropped == nil && idle.droppedWaiting.isEmpty && idle.launcher == nil)
  }
}
