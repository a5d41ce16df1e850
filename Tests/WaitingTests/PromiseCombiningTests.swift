import Dispatch
import Testing
import TinyWaiting
import TinyTestSupport

@Suite struct PromiseCombiningTests {
  @Test func allKeepsInputOrderWhateverTheArrivalOrder() {
    let promises = (0..<4).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    for index in [2, 0, 3] {
      promises[index].fulfill(index * 10)
      #expect(!all.isResolved)
    }
    promises[1].fulfill(10)
    #expect(all.result?.value == [0, 10, 20, 30])
  }

  @Test func allOfNothingIsFulfilledAtOnceWithAnEmptyArray() {
    #expect(Promise<Int>.all([]).result?.value == [])
  }

  @Test func allOfResolvedPromisesIsResolvedAtOnce() {
    #expect(Promise.all([Promise(value: 1)]).result?.value == [1])
    let same = Promise(value: 7)
    #expect(Promise.all([same, same, Promise(value: 8)]).result?.value == [7, 7, 8])
  }

  @Test func theFirstErrorWinsWithoutWaitingForTheRest() {
    let promises = (0..<3).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    promises[0].fulfill(0)
    promises[2].reject(TestError(2))
    #expect(all.result?.testError == TestError(2))
    promises[1].reject(TestError(1))
    #expect(all.result?.testError == TestError(2))
  }

  @Test func allUnderConcurrentResolution() async throws {
    let promises = (0..<1_000).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    DispatchQueue.concurrentPerform(iterations: promises.count) { promises[$0].fulfill($0) }
    #expect(try await all.value == Array(0..<1_000))
  }

  @Test func raceTakesTheFirstToSettle() {
    let slow = Promise<String>()
    let fast = Promise<String>()
    let first = Promise.race([slow, fast])
    #expect(!first.isResolved)
    fast.fulfill("fast")
    slow.fulfill("slow")
    #expect(first.result?.value == "fast")
  }

  @Test func raceTakesAFirstErrorToo() {
    let slow = Promise<String>()
    let failing = Promise<String>()
    let first = Promise.race([slow, failing])
    failing.reject(TestError(1))
    slow.fulfill("slow")
    #expect(first.result?.testError == TestError(1))
    #expect(Promise.race([Promise<Int>(), Promise(value: 2)]).result?.value == 2)
  }

  @Test func raceOfNothingNeverSettles() async {
    let never = Promise<Int>.race([])
    #expect(!never.isResolved)
    let cancelled = Task { try await never.value }
    cancelled.cancel()
    #expect(isCancellation(await cancelled.result))
    #expect(!never.isResolved)
  }
}
