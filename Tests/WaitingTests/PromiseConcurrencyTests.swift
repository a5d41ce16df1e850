import Dispatch
import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite struct PromiseConcurrencyTests {
  @Test func valueOfAResolvedPromiseReturnsOrThrowsAtOnce() async throws {
    #expect(try await Promise(value: 3).value == 3)
    await #expect(throws: TestError(4)) { try await Promise<Int>(error: TestError(4)).value }
  }

  @Test func valueWaitsForAPendingPromise() async throws {
    let promise = Promise<Int>()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { promise.fulfill(5) }
    #expect(try await promise.value == 5)

    let rejected = Promise<Int>()
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) { rejected.reject(TestError(6)) }
    await #expect(throws: TestError(6)) { try await rejected.value }
  }

  @Test func manyTasksAwaitOnePromise() async throws {
    let promise = Promise<Int>()
    let total = Task {
      try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<100 { group.addTask { try await promise.value } }
        return try await group.reduce(0, +)
      }
    }
    DispatchQueue.global().async { promise.fulfill(2) }
    #expect(try await total.value == 200)
  }

  @Test func cancellingTheAwaitingTaskThrowsAndLeavesThePromiseAlone() async throws {
    let promise = Promise<Int>()
    let awaiting = Task { try await promise.value }
    awaiting.cancel()
    #expect(isCancellation(await awaiting.result))
    // Its callback was taken back: nothing is left waiting, and others can still await.
    #expect(promise.storage.withLock { $0.waitingCount } == 0)
    #expect(promise.fulfill(1))
    #expect(try await promise.value == 1)
  }

  @Test func racingCancellationAndResolutionResumeEachAwaitExactlyOnce() async {
    for _ in 0..<200 {
      let promise = Promise<Int>()
      let awaits = (0..<5).map { _ in Task { try await promise.value } }
      await withTaskGroup(of: Void.self) { group in
        for task in awaits { group.addTask { task.cancel() } }
        group.addTask { promise.fulfill(1) }
      }
      for task in awaits {
        let result = await task.result
        #expect(result.value == 1 || isCancellation(result))
      }
      #expect(promise.storage.withLock { $0.waitingCount } == 0)
    }
  }

  @Test func aPromiseFromAnAsyncOperationResolvesWithItsOutcome() async throws {
    let fulfilled = Promise { () async throws -> Int in
      try await Task.sleep(for: .milliseconds(1))
      return 8
    }
    #expect(try await fulfilled.value == 8)
    let rejected = Promise<Int> { throw TestError(9) }
    await #expect(throws: TestError(9)) { try await rejected.value }
  }
}
