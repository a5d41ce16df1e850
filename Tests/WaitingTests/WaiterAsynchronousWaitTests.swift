import Dispatch
import Foundation
import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WaiterAsynchronousWaitTests {
  @Test func workDoneAfterTwoTenthsMakesAWaitSucceedWhenItFinishes() async {
    let waiter = Waiter()
    let started = ContinuousClock.now
    finishOnNewThread(after: 0.2) { waiter.finish() }
    #expect(await waiter.wait(timeout: helperTimeout))
    #expect(ContinuousClock.now - started >= .milliseconds(190))  // not before the finish
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func workDoneAfterTwoTenthsMakesATenthOfASecondWaitFail() async throws {
    // The work starts once the wait is suspended, so it finishes after the deadline however
    // late anything runs.
    let executor = ManualExecutor()
    let waiter = Waiter()
    let wait = Task(executorPreference: executor) {
      await waiter.wait(timeout: .milliseconds(100))
    }
    executor.runUntilIdle()
    await onNewThread {
      // timing: the work must end after the wait's deadline on the waiter's real clock
      Thread.sleep(forTimeInterval: 0.2)
      waiter.finish()
    }
    executor.runUntilIdle()
    #expect(await !TinyTestSupport.value(of: wait))
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func aFinishAfterTheDeadlineIsFalseEvenWhenItResumesTheWaitBeforeTheTimeoutDoes()
    async throws
  {
    // The timeout task is held on the executor, so the late finish resumes the wait first.
    let executor = ManualExecutor()
    let waiter = Waiter()
    let wait = Task(executorPreference: executor) {
      await waiter.wait(timeout: .milliseconds(20))
    }
    executor.runUntilIdle()
    let suspendedBy = ContinuousClock.now
    await onNewThread {
      while ContinuousClock.now < suspendedBy + .milliseconds(40) {
        // timing: the wait's real-clock deadline must pass before the finish
        Thread.sleep(forTimeInterval: 0.01)
      }
      waiter.finish()
    }
    executor.runUntilIdle()
    #expect(await !TinyTestSupport.value(of: wait))
    #expect(waiter.isFinished)
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func theFinishAloneResumesASuspendedWait() async throws {
    // The timeout task is held on the executor and the deadline is far: the finish resumes it.
    let executor = ManualExecutor()
    let waiter = Waiter()
    let wait = Task(executorPreference: executor) {
      await waiter.wait(timeout: helperTimeout)
    }
    executor.runUntilIdle()
    waiter.finish()
    executor.runUntilIdle()
    #expect(await TinyTestSupport.value(of: wait))
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
        group.addTask { await waiter.wait(timeout: .seconds(600)) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    for _ in 0..<3 {
      DispatchQueue.global().async { waiter.finish() }
    }
    let started = ContinuousClock.now
    #expect(await results == Array(repeating: true, count: 10))
    // Woken by the finish, not at the deadline (a wait woken there still returns `true`, since
    // the finish came first). The timeout is far beyond the suite's time limit, so only a wake by
    // the finish passes; the bound leaves room for slow runs (at full stress volume, 2 cores'
    // cooperative threads were once busy for 88 s before these tasks resumed).
    #expect(ContinuousClock.now - started < .seconds(300))
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func cancellationWhileSuspendedReturnsFalseAtOnce() async throws {
    // No timeout has to pass: the cancellation alone resumes the wait.
    let executor = ManualExecutor()
    let waiter = Waiter()
    let wait = Task(executorPreference: executor) { await waiter.wait(timeout: .seconds(60)) }
    executor.runUntilIdle()
    #expect(waiter.withState { $0.suspendedCount } == 1)
    wait.cancel()
    executor.runUntilIdle()
    #expect(waiter.withState { $0.suspendedCount } == 0)
    #expect(await !TinyTestSupport.value(of: wait))
    #expect(!waiter.isFinished)
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
    for round in 0..<stressVolume(full: 1_000, quick: 50) {
      let waiter = Waiter()
      await withTaskGroup(of: Void.self) { group in
        for index in 0..<5 {
          let wait = Task { await waiter.wait(timeout: .microseconds(50 * (index + round % 7))) }
          group.addTask { _ = await value(of: wait) }
          group.addTask { wait.cancel() }
        }
        group.addTask { waiter.finish() }
      }
    }
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func aWaitThatEndedDoesNotKeepTheWaiterAlive() async throws {
    // Neither the continuation nor the 1-hour timeout task outlives the wait or holds the
    // waiter, once the task and its timeout task have run to their end.
    let executor = ManualExecutor()
    weak var released: Waiter?
    let wait: Task<Bool, Never>
    do {
      let waiter = Waiter()
      released = waiter
      wait = Task(executorPreference: executor) { await waiter.wait(timeout: .seconds(3_600)) }
      executor.runUntilIdle()
      waiter.finish()
    }
    executor.runUntilIdle()
    #expect(await TinyTestSupport.value(of: wait))
    #expect(released == nil)
  }
}

extension WaiterAsynchronousWaitTests {
  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test(arguments: [Duration.seconds(Int64.max), .seconds(1 << 40), .seconds(3_600)])
  func hugeTimeoutsWaitForTheFinish(timeout: Duration) async throws {
    let executor = ManualExecutor()
    let waiter = Waiter()
    let wait = Task(executorPreference: executor) { await waiter.wait(timeout: timeout) }
    executor.runUntilIdle()  // suspended, its timeout task asleep
    waiter.finish()
    executor.runUntilIdle()
    #expect(await TinyTestSupport.value(of: wait))
  }
}
