import Dispatch
import Testing
import TinyWaiting
import TinyTestSupport

@Suite struct WaiterAsynchronousWaitTests {
  @Test func workDoneAfterTwoTenthsMakesAHalfSecondWaitSucceed() async {
    let waiter = Waiter()
    finishOnNewThread(after: 0.2) { waiter.finish() }
    let started = ContinuousClock.now
    #expect(await waiter.wait(timeout: .milliseconds(500)))
    #expect(ContinuousClock.now - started >= .milliseconds(190))
  }

  @Test func workDoneAfterTwoTenthsMakesATenthOfASecondWaitFail() async {
    let waiter = Waiter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { waiter.finish() }
    let started = ContinuousClock.now
    #expect(await !waiter.wait(timeout: .milliseconds(100)))
    #expect(ContinuousClock.now - started >= .milliseconds(100))
  }

  @Test func aFinishedWaiterReturnsAtOnceAndZeroTimeoutDoesNotWait() async {
    let waiter = Waiter()
    #expect(await !waiter.wait(timeout: .zero))
    #expect(await !waiter.wait(timeout: .seconds(-1)))
    waiter.finish()
    #expect(await waiter.wait(timeout: .zero))
    #expect(await waiter.wait(timeout: .seconds(-1)))
    #expect(await waiter.wait(timeout: .seconds(100)))
  }

  @Test func theLastFinishFromAnotherThreadWakesEveryWait() async {
    let waiter = Waiter(count: 3)
    async let results = withTaskGroup(of: Bool.self) { group in
      for _ in 0..<10 {
        group.addTask { await waiter.wait(timeout: .seconds(60)) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    for _ in 0..<3 {
      DispatchQueue.global().async { waiter.finish() }
    }
    let started = ContinuousClock.now
    #expect(await results == Array(repeating: true, count: 10))
    // Woken by the finish, not at the deadline (a wait woken there still returns `true`, since
    // the finish came first). The bound is half the timeout because the whole suite under the
    // thread sanitizer on 2 cores once took 11.9 s to resume these tasks.
    #expect(ContinuousClock.now - started < .seconds(30))
  }

  @Test func cancellationReturnsFalsePromptly() async {
    let waiter = Waiter()
    let started = ContinuousClock.now
    let wait = Task { await waiter.wait(timeout: .seconds(60)) }
    wait.cancel()
    #expect(await !wait.value)
    #expect(ContinuousClock.now - started < .seconds(30))
    #expect(!waiter.isFinished)
  }

  @Test func cancellationWhileSuspendedReturnsFalsePromptly() async {
    // The task is cancelled after its wait has begun: a second waiter, finished by the
    // task right before it waits, says when.
    let waiter = Waiter()
    let waiting = Waiter()
    let wait = Task {
      waiting.finish()
      return await waiter.wait(timeout: .seconds(60))
    }
    #expect(await waiting.wait(timeout: .seconds(30)))
    wait.cancel()
    #expect(await !wait.value)
  }

  @Test func anAlreadyCancelledTaskGetsTheCurrentStateWithoutWaiting() async {
    let unfinished = Waiter()
    let finished = Waiter()
    finished.finish()
    let results = await Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return (
        await unfinished.wait(timeout: .seconds(60)), await finished.wait(timeout: .seconds(60))
      )
    }.value
    #expect(results == (false, true))
  }

  @Test func racingFinishTimeoutAndCancellationResumeEachWaitExactlyOnce() async {
    // A checked continuation traps when resumed twice and warns when never resumed; every wait
    // below ends, each by whichever of the three comes first.
    for round in 0..<200 {
      let waiter = Waiter()
      await withTaskGroup(of: Void.self) { group in
        for index in 0..<5 {
          let wait = Task { await waiter.wait(timeout: .microseconds(50 * (index + round % 7))) }
          group.addTask { _ = await wait.value }
          group.addTask { wait.cancel() }
        }
        group.addTask { waiter.finish() }
      }
    }
  }

  @Test func aWaitThatEndedDoesNotKeepTheWaiterAlive() async {
    // Neither the continuation nor the 1-hour timeout task outlives the wait or holds the
    // waiter. The finishing thread drops its reference before it says it is done.
    weak var released: Waiter?
    let handOff = Recorder<Waiter>()
    let done = Waiter()
    do {
      let waiter = Waiter()
      released = waiter
      handOff.record(waiter)
      DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) {
        handOff.removeAll().first?.finish()
        done.finish()
      }
      #expect(await waiter.wait(timeout: .seconds(3_600)))
    }
    #expect(await done.wait(timeout: .seconds(30)))
    #expect(released == nil)
  }
}

extension WaiterAsynchronousWaitTests {
  @Test(arguments: [Duration.seconds(Int64.max), .seconds(1 << 40), .seconds(3_600)])
  func hugeTimeoutsWaitForTheFinish(timeout: Duration) async {
    let waiter = Waiter()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { waiter.finish() }
    #expect(await waiter.wait(timeout: timeout))
  }
}
