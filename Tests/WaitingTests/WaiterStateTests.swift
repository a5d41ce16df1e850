import Testing
import TinyTestSupport
@testable import TinyWaiting

/// Every transition of the pure waiter state machine, with integers for instants and strings
/// for the waits.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WaiterStateTests {
  typealias State = WaiterState<Int, String, String>

  @Test func countsUpToTheExpectedCountThenIgnoresExtras() {
    var state = State(expectedCount: 3)
    #expect(transition(&state, at: 1) == "counted 2")
    #expect(transition(&state, at: 2) == "counted 1")
    #expect(!state.isFinished)
    #expect(transition(&state, at: 3) == "finished  /  / false")
    #expect(state.finishedAt == 3)
    #expect(transition(&state, at: 4) == "extra")
    #expect(state.finishedAt == 3)
    #expect(state.finishCount == 4)
  }

  /// The one rule for every wait's result: a finish at the deadline itself is in time.
  @Test func aFinishAtTheDeadlineIsInTime() {
    var state = State(expectedCount: 1)
    #expect(state.isInTime(for: 5) == nil)  // not finished yet
    _ = transition(&state, at: 5)
    #expect(state.isInTime(for: 4) == false)
    #expect(state.isInTime(for: 5) == true)
    #expect(state.isInTime(for: 6) == true)
    #expect(State.isInTime(5, for: 5))
    #expect(!State.isInTime(6, for: 5))
  }

  @Test func theLastFinishHandsOutEveryWaitOnce() {
    var state = State(expectedCount: 1)
    let first = state.makeID()
    let second = state.makeID()
    let suspended = [state.suspend("task A", id: first), state.suspend("task B", id: second)]
    #expect(suspended == [true, true])
    let blocked = [
      state.block(on: "thread", spinsMainRunLoop: false),
      state.block(on: "main", spinsMainRunLoop: true),
    ]
    #expect(blocked == [2, 3])
    #expect(state.suspendedCount == 2)
    #expect(state.blockedCount == 2)
    #expect(transition(&state, at: 7) == "finished task A, task B / main, thread / true")
    #expect(state.suspendedCount == 0)
    #expect(state.blockedCount == 0)
    let resumed = state.resume(first)
    #expect(resumed == nil)  // resumed by the finish already
  }

  @Test func theMainRunLoopIsWokenOnlyWhenAWaitSpinsIt() {
    var state = State(expectedCount: 1)
    let id = state.block(on: "main", spinsMainRunLoop: true)!
    state.unblock(id)
    _ = state.block(on: "thread", spinsMainRunLoop: false)
    #expect(transition(&state, at: 1) == "finished  / thread / false")
  }

  @Test func waitsRecordNothingOnceFinished() {
    var state = State(expectedCount: 1)
    _ = state.finish(at: 0, on: 1)
    let id = state.makeID()
    let suspended = state.suspend("late task", id: id)
    let blocked = state.block(on: "late thread", spinsMainRunLoop: true)
    #expect(!suspended)
    #expect(blocked == nil)
    #expect(state.suspendedCount == 0)
    #expect(state.blockedCount == 0)
  }

  @Test func aTimeoutOrCancellationTakesTheWaitOutExactlyOnce() {
    var state = State(expectedCount: 2)
    let id = state.makeID()
    let suspended = state.suspend("task", id: id)
    let updated = state.updateSuspended(id) { $0 += " with timer" }
    let resumed = [state.resume(id), state.resume(id)]
    let updatedAfterResume = state.updateSuspended(id) { $0 += "!" }
    #expect(suspended)
    #expect(updated)
    #expect(resumed == ["task with timer", nil])
    #expect(!updatedAfterResume)
    #expect(transition(&state, at: 1) == "counted 1")
    #expect(transition(&state, at: 2) == "finished  /  / false")
  }

  @Test func theLastFinishAwaitsTheQuantaRunningOnOtherThreadsOnly() {
    var state = State(expectedCount: 2)
    let runs = (0..<5).map { _ in state.makeID() }
    var began = [
      state.beginQuantum(runs[0], on: 1, deadline: 10),  // on the finishing thread
      state.beginQuantum(runs[1], on: 2, deadline: 20),
      state.beginQuantum(runs[2], on: 3, deadline: 30),
    ]
    let endedBeforeAnyFinish = state.endQuantum(runs[2])
    #expect(transition(&state, at: 1) == "counted 1")  // only the last finish awaits runs
    began.append(state.beginQuantum(runs[3], on: 4, deadline: 40))
    #expect(transition(&state, at: 2) == "finished  /  / false / awaits quanta until [20, 40]")
    let ended = [
      state.endQuantum(runs[1]), state.endQuantum(runs[3]), state.endQuantum(runs[0]),
      state.endQuantum(runs[0]),
    ]
    began.append(state.beginQuantum(runs[4], on: 2, deadline: 50))  // finished: none starts
    #expect(began == [true, true, true, true, false])
    #expect(!endedBeforeAnyFinish)
    #expect(ended == [true, true, false, false])
    #expect(transition(&state, at: 3, on: 2) == "extra")
  }

  /// A finish transition as text, with the waits sorted (they come out of dictionaries).
  private func transition(_ state: inout State, at now: Int, on thread: UInt = 1) -> String {
    switch state.finish(at: now, on: thread) {
    case .counted(let remaining): "counted \(remaining)"
    case .extra: "extra"
    case .finished(let suspended, let blocked, let wakes, let quanta):
      "finished \(suspended.sorted().joined(separator: ", ")) / \(blocked.sorted().joined(separator: ", ")) / \(wakes)"
        + (quanta.isEmpty ? "" : " / awaits quanta until \(quanta.sorted())")
    }
  }
}
