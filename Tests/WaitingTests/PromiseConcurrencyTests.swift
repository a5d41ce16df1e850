import Dispatch
import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseConcurrencyTests {
  @Test func valueOfAResolvedPromiseReturnsOrThrowsAtOnce() async throws {
    #expect(try await Promise(value: 3).value == 3)
    await #expect(throws: TestError(4)) { try await Promise<Int>(error: TestError(4)).value }
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test(arguments: [false, true])
  func valueSuspendsUntilThePromiseResolves(rejects: Bool) async throws {
    let executor = ManualExecutor()
    let promise = Promise<Int>()
    let awaiting = Task(executorPreference: executor) { try await promise.value }
    executor.runUntilIdle()
    // The task ran as far as it could: it is suspended, its callback registered.
    #expect(promise.state.withLock { $0.waiting.count } == 1)
    if rejects { promise.reject(TestError(6)) } else { promise.fulfill(5) }
    executor.runUntilIdle()
    let result = await TinyTestSupport.result(of: awaiting)
    #expect(promise.state.withLock { $0.waiting.count } == 0)
    if rejects {
      #expect(result.testError == TestError(6))
    } else {
      #expect(result.value == 5)
    }
  }

  // Awaits racing fulfilments on other threads each get the whole value, whether they find
  // the promise pending or fulfilled (the thread sanitizer checks the hand-over).
  @Test func awaitsRacingFulfilmentsOnOtherThreadsReadTheWholeValue() async throws {
    let rounds = stressVolume(full: 20_000, quick: 1_000)
    var wrong = 0
    for round in 0..<rounds {
      let promise = Promise<[String]>()
      let expected = ["round", String(round)]
      DispatchQueue.global().async { promise.fulfill(expected) }
      if try await promise.value != expected { wrong += 1 }
      if try await promise.value != expected { wrong += 1 }  // now surely fulfilled
    }
    #expect(wrong == 0)
  }

  @Test func manyTasksAwaitOnePromise() async throws {
    // Child tasks: the suite's time limit cancels them, and a cancelled `value` returns.
    let promise = Promise<Int>()
    DispatchQueue.global().async { promise.fulfill(2) }
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<100 { group.addTask { try await promise.value } }
      return try await group.reduce(0, +)
    }
    #expect(total == 200)
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test(arguments: [false, true])
  func cancellingTheAwaitingTaskThrowsAndLeavesThePromiseAlone(whileSuspended: Bool) async throws {
    // Cancelled while suspended (the cancellation takes its callback back), or before it
    // starts (it finds the task cancelled once its callback is registered).
    let executor = ManualExecutor()
    let promise = Promise<Int>()
    let awaiting = Task(executorPreference: executor) { try await promise.value }
    if whileSuspended {
      executor.runUntilIdle()
      #expect(promise.state.withLock { $0.waiting.count } == 1)
    }
    awaiting.cancel()
    executor.runUntilIdle()
    #expect(isCancellation(await TinyTestSupport.result(of: awaiting)))
    // Its callback was taken back: nothing is left waiting, and others can still await.
    #expect(promise.state.withLock { $0.waiting.count } == 0)
    #expect(promise.fulfill(1))
    #expect(try await promise.value == 1)
  }

  @Test func racingCancellationAndResolutionResumeEachAwaitExactlyOnce() async throws {
    // A checked continuation traps when resumed twice; every await ends exactly once.
    for _ in 0..<stressVolume(full: 1_000, quick: 50) {
      let promise = Promise<Int>()
      let awaits = (0..<5).map { _ in Task { try await promise.value } }
      await withTaskGroup(of: Void.self) { group in
        for task in awaits { group.addTask { task.cancel() } }
        group.addTask { promise.fulfill(1) }
      }
      for task in awaits {
        let result = await TinyTestSupport.result(of: task)
        #expect(result.value == 1 || isCancellation(result))
      }
      #expect(promise.state.withLock { $0.waiting.count } == 0)
    }
  }

  @Test func aPromiseFromAnAsyncOperationResolvesWithItsOutcome() async throws {
    let fulfilled = Promise { () async throws -> Int in
      await onNewThread {}  // really suspends: the value comes after an await
      return 8
    }
    #expect(try await fulfilled.value == 8)
    let rejected = Promise<Int> { throw TestError(9) }
    await #expect(throws: TestError(9)) { try await rejected.value }
  }

  @TaskLocal static var marker = "none"

  @Test func theOperationInheritsTaskLocalsAndHoldsThePromiseUntilItReturns() async throws {
    let proceed = Gate()
    weak var released: Promise<String>?
    let finished = Waiter()
    let seen = Recorder<String>()
    do {
      let promise = Self.$marker.withValue("caller") {
        Promise { () async -> String in
          await proceed.opened()
          seen.record(Self.marker)
          finished.finish()
          return Self.marker
        }
      }
      released = promise
    }
    // Dropped by the caller, the promise is held by the running operation, which goes on.
    #expect(released != nil)
    proceed.open()
    #expect(await finished.wait(timeout: helperTimeout))
    #expect(seen.all == ["caller"])
  }

  @Test func anOperationThatAwaitsItsOwnPromiseIsRejectedWithACycleError() async {
    let own = Recorder<Promise<Int>>()
    let start = Gate()
    let promise = Promise<Int> {
      await start.opened()
      return try await own.all[0].value
    }
    own.record(promise)
    start.open()
    // Bounded: without the check, the operation would wait for its own end forever.
    let settled = Waiter()
    promise.whenResolved { _ in settled.finish() }
    #expect(await settled.wait(timeout: helperTimeout))
    #expect(promise.result?.error is PromiseCycleError)
  }

  @Test func anOperationThatAwaitsItsOwnPromiseWithATimeoutIsRejectedAtOnce() async {
    // Not once the timeout has passed: the clock here never moves, and no timer starts on it.
    let clock = StepClock()
    let own = Recorder<Promise<Int>>()
    let start = Gate()
    let promise = Promise<Int> {
      await start.opened()
      return try await own.all[0].value(timeout: .seconds(5), clock: clock)
    }
    own.record(promise)
    start.open()
    let settled = Waiter()
    promise.whenResolved { _ in settled.finish() }
    #expect(await settled.wait(timeout: helperTimeout))
    #expect(promise.result?.error is PromiseCycleError)
    #expect(clock.sleepCount == 0)
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func aTaskTheOperationStartsMayAwaitThePromise() async throws {
    // A task started by the operation inherits its task locals, but it is another task:
    // awaiting the promise there, while the operation still runs, is fine (the operation does
    // not wait for it). That task runs on the manual executor, so its await is forced to happen
    // while the promise is pending.
    let executor = ManualExecutor()
    let own = Recorder<Promise<Int>>()
    let inner = Recorder<Task<Int, any Error>>()
    let start = Promise<Void>()
    let started = Gate()
    let release = Promise<Void>()
    let promise = Promise<Int> {
      try await start.value
      inner.record(Task(executorPreference: executor) { try await own.all[0].value + 1 })
      started.open()
      try await release.value
      return 1
    }
    own.record(promise)
    start.fulfill()
    await started.opened()  // the operation waits for `release`
    executor.runUntilIdle()  // the inner task waits for `promise`
    #expect(promise.state.withLock { $0.waiting.count } == 1)
    executor.runFreely()
    release.fulfill()
    #expect(try await promise.value == 1)
    let awaiting = try #require(inner.all.first)
    #expect(try await TinyTestSupport.value(of: awaiting) == 2)
  }
}
