import Testing
import TinyTestSupport

@testable import TinyScheduling

/// The rate limiter's pure state machine, step by step. Scripts and results use the tokens of
/// `run(_:on:)` (Support/MachineScript.swift): `a` executes action "a", `a*` one that keeps
/// running until `D`, `|` ticks, `C` cancels, `F` flushes; in results `S`/`X` are launcher
/// start/stop, a name is an action the machine runs, `f` a flush that found nothing.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct RateLimiterStateTests {
  @Test(
    arguments: [
      // Quiescent: nothing to do.
      ("", ""),
      ("|", ""),
      ("C", ""),
      ("F", "f"),
      // The first action runs at once and starts the launcher.
      ("a", "S a"),
      // A tick with nothing kept stops the launcher; later ticks are ignored.
      ("a |", "S a X"),
      ("a | | |", "S a X"),
      // While active only the latest action is kept, and each tick runs it.
      ("a b", "S a"),
      ("a b |", "S a b"),
      ("a b c |", "S a c"),
      ("a b | |", "S a b X"),
      ("a b | c d | |", "S a b d X"),
      // After a quiet tick the limiter is quiescent: the next action runs at once.
      ("a | b", "S a X S b"),
      ("a b c | | d", "S a c X S d"),
      // Cancel drops the kept action; the next execute runs at once.
      ("a b C", "S a X"),
      ("a b C |", "S a X"),
      ("a b C c", "S a X S c"),
      ("a C C", "S a X"),
      // Flush runs the kept action now; the launcher keeps going, and stops at a quiet tick.
      ("a b F", "S a b"),
      ("a b F |", "S a b X"),
      ("a b F c |", "S a b c"),
      ("a F", "S a f"),
      ("a b F F", "S a b f"),
    ] as [(String, String)])
  func stepsInOneThread(script: String, expected: String) {
    #expect(run(script, on: RateLimiterState<String>.self) == expected)
  }

  @Test(
    "while an action runs, ticks are skipped and nothing else starts",
    arguments: [
      // A tick during a run is skipped; the kept action waits for the next tick.
      ("a* b |", "S a"),
      ("a* b | D", "S a"),
      ("a* b | D |", "S a b"),
      ("a* | D |", "S a X"),
      ("a b2* | c | | D |", "S a b2 c"),
      // Flush during a run: the kept action runs right after the running one returns.
      ("a* b F", "S a"),
      ("a* b F D", "S a b"),
      ("a* b F c F D", "S a b c"),
      ("a* b F D |", "S a b X"),
      // Cancel during a run, then execute: "at once" means right after the running action.
      ("a* C b", "S a X S"),
      ("a* C b D", "S a X S b"),
      ("a* C b c D |", "S a X S b c"),
      ("a* C b C D", "S a X S X"),
      ("a* b F C D", "S a X"),
    ] as [(String, String)])
  func stepsWhileAnActionRuns(script: String, expected: String) {
    #expect(run(script, on: RateLimiterState<String>.self) == expected)
  }

  @Test func handsBackEveryActionItDropsWithoutRunningIt() {
    var state = RateLimiterState<String>()
    #expect(state.execute("a").run == "a")  // runs, and stays running in this test
    #expect(state.execute("b").dropped == nil)  // kept
    #expect(state.execute("c").dropped == "b")  // replaces b
    let cancel = state.cancel()
    #expect(cancel.dropped == "c")
    #expect(cancel.droppedWaiting.isEmpty)
    #expect(cancel.launcher == .stop)
    #expect(state.execute("d").run == nil)  // quiescent, but "a" runs: d waits for it
    let second = state.cancel()
    #expect(second.dropped == nil)
    #expect(second.droppedWaiting == ["d"])
    #expect(second.launcher == .stop)
    #expect(state.finish() == nil)  // nothing is left to run after a
    let idle = state.cancel()
    #expect(idle.dropped == nil && idle.droppedWaiting.isEmpty && idle.launcher == nil)
  }

  @Test func keepsItsInvariants() {
    var state = RateLimiterState<String>()
    _ = state.execute("a")
    #expect(state.isActive && state.turn.isRunning && state.pending == nil)
    #expect(state.finish() == nil)
    _ = state.execute("b")
    #expect(state.pending == "b" && !state.turn.isRunning)
    _ = state.cancel()
    #expect(!state.isActive && state.pending == nil)
  }
}
