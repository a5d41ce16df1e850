import Dispatch
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct MainQueueTests {
  @Test @MainActor func mainActorTestsRunOnTheMainQueue() {
    // Swift Testing runs @MainActor tests on the main queue; on Linux, on a worker thread that
    // drains it, so `Thread.isMainThread` would say no here. The queue-specific key says yes.
    #expect(MainQueue.isCurrent)
  }

  @Test func otherQueuesAndThreadsAreNotTheMainQueue() async {
    let answers = Recorder<Bool>()
    await onNewThread { answers.record(MainQueue.isCurrent) }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        answers.record(MainQueue.isCurrent)
        done.resume()
      }
    }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async {
        answers.record(MainQueue.isCurrent)
        done.resume()
      }
    }
    #expect(answers.all == [false, false, true])
  }
}
