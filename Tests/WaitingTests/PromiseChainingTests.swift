import Foundation
import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseChainingTests {
  @Test(
    "map: fulfilled values are transformed, errors pass through, throws reject",
    arguments: [
      (.success(2), false, .success(20)),
      (.success(2), true, .failure(TestError(99))),
      (.failure(TestError(1)), false, .failure(TestError(1))),
      (.failure(TestError(1)), true, .failure(TestError(1))),
    ] as [(Result<Int, TestError>, Bool, Result<Int, TestError>)])
  func map(input: Result<Int, TestError>, throwing: Bool, expected: Result<Int, TestError>) {
    let transform: @Sendable (Int) throws -> Int = { value in
      if throwing { throw TestError(99) }
      return value * 10
    }
    // Already resolved, and resolved later: the same outcome.
    let resolved = Promise(result: input.mapError { $0 as any Error }).map(transform)
    let pending = Promise<Int>()
    let later = pending.map(transform)
    #expect(!later.isResolved)
    pending.resolve(with: input.mapError { $0 as any Error })
    for promise in [resolved, later] {
      #expect(promise.result?.value == (try? expected.get()))
      #expect(promise.result?.testError == expected.failureValue)
    }
  }

  @Test(
    "recover: errors become values, values pass through, throws reject",
    arguments: [
      (.success(2), false, .success(2)),
      (.success(2), true, .success(2)),
      (.failure(TestError(1)), false, .success(-1)),
      (.failure(TestError(1)), true, .failure(TestError(98))),
    ] as [(Result<Int, TestError>, Bool, Result<Int, TestError>)])
  func recover(input: Result<Int, TestError>, throwing: Bool, expected: Result<Int, TestError>) {
    let recovery: @Sendable (any Error) throws -> Int = { error in
      if throwing { throw TestError(98) }
      return -(error as! TestError).code
    }
    let resolved = Promise(result: input.mapError { $0 as any Error }).recover(recovery)
    let pending = Promise<Int>()
    let later = pending.recover(recovery)
    pending.resolve(with: input.mapError { $0 as any Error })
    for promise in [resolved, later] {
      #expect(promise.result?.value == (try? expected.get()))
      #expect(promise.result?.testError == expected.failureValue)
    }
  }

  @Test func thenChainsTheNextStepAndResolvesAsItDoes() {
    let first = Promise<Int>()
    let second = Promise<String>()
    let steps = Recorder<Int>()
    let chained = first.then { value -> Promise<String> in
      steps.record(value)
      return second
    }
    #expect(!chained.isResolved)
    first.fulfill(1)
    #expect(steps.all == [1])
    #expect(!chained.isResolved)
    second.fulfill("two")
    #expect(chained.result?.value == "two")
  }

  @Test func thenPassesErrorsOnAndRejectsWhenTheStepThrowsOrFails() {
    let skipped = Recorder<Int>()
    let rejected = Promise<Int>(error: TestError(1)).then { value -> Promise<Int> in
      skipped.record(value)
      return Promise(value: 0)
    }
    #expect(rejected.result?.testError == TestError(1))
    #expect(skipped.all.isEmpty)

    let throwing = Promise(value: 1).then { _ -> Promise<Int> in throw TestError(2) }
    #expect(throwing.result?.testError == TestError(2))

    let failing = Promise(value: 1).then { _ in Promise<Int>(error: TestError(3)) }
    #expect(failing.result?.testError == TestError(3))

    let resolved = Promise(value: 1).then { Promise(value: $0 + 1) }
    #expect(resolved.result?.value == 2)
  }

  @Test func aPendingThenPassesErrorsOnAndRejectsWhenTheStepThrows() {
    // The same three outcomes as above, with the source still pending when `then` is called.
    let rejectedSource = Promise<Int>()
    let rejected = rejectedSource.then { Promise(value: $0) }
    let throwingSource = Promise<Int>()
    let throwing = throwingSource.then { _ -> Promise<Int> in throw TestError(6) }
    let failingSource = Promise<Int>()
    let failing = failingSource.then { _ in Promise<Int>(error: TestError(7)) }
    #expect(rejected.result == nil && throwing.result == nil && failing.result == nil)
    rejectedSource.reject(TestError(5))
    throwingSource.fulfill(1)
    failingSource.fulfill(1)
    #expect(rejected.result?.testError == TestError(5))
    #expect(throwing.result?.testError == TestError(6))
    #expect(failing.result?.testError == TestError(7))
  }

  @Test func thenOfAFulfilledPromiseReturnsAResolvedStepItself() {
    let fulfilled = Promise(value: "step")
    let rejected = Promise<String>(error: TestError(4))
    #expect(Promise(value: 1).then { _ in fulfilled } === fulfilled)
    #expect(Promise(value: 1).then { _ in rejected } === rejected)
  }

  @Test func thenNeverHandsOutAPendingStepWhoseResolutionIsNotItsOwn() {
    // A pending step is followed, not returned: resolving what `then` returned must not
    // resolve the step that others may hold, whether the source was resolved or pending.
    let step = Promise<Int>()
    let source = Promise<Int>()
    let fromResolved = Promise(value: 1).then { _ in step }
    let fromPending = source.then { _ in step }
    source.fulfill(1)
    #expect(fromResolved !== step)
    #expect(fromPending !== step)
    #expect(fromResolved.fulfill(7))
    #expect(fromPending.fulfill(8))
    #expect(!step.isResolved)
    step.fulfill(9)
    #expect(fromResolved.result?.value == 7)
    #expect(fromPending.result?.value == 8)
  }

  @Test func aPendingStepIsFollowedWhenTheSourceIsFulfilledAlready() {
    let step = Promise<Int>()
    let chained = Promise(value: 1).then { _ in step }
    #expect(!chained.isResolved)
    step.reject(TestError(5))
    #expect(chained.result?.testError == TestError(5))
  }

  @Test func authenticateThenFeedThenItemsWithRecovery() async throws {
    struct Feed: Sendable {
      let items: [String]
    }
    @Sendable func authenticate() -> Promise<String> {
      Promise { "token" }
    }
    @Sendable func feed(for token: String) -> Promise<Feed> {
      Promise { token == "token" ? Feed(items: ["a", "b"]) : Feed(items: []) }
    }
    let items = authenticate().then { feed(for: $0) }.map(\.items).recover { _ in [] }
    #expect(try await items.value == ["a", "b"])

    let offline = Promise<String>(error: TestError(1)).then { feed(for: $0) }.map(\.items)
    #expect(try await offline.recover { _ in [] }.value == [])
  }

  @Test func transformsRunOnceEvenWhenManyChainFromOnePromise() {
    let source = Promise<Int>()
    let calls = Recorder<Int>()
    let mapped = (0..<5).map { index in
      source.map { value -> Int in
        calls.record(index)
        return value + index
      }
    }
    source.fulfill(10)
    source.fulfill(20)
    #expect(calls.all == [0, 1, 2, 3, 4])
    #expect(mapped.map { $0.result?.value } == [10, 11, 12, 13, 14])
  }

  @Test func aChainResolvedOutsideAnyCallbackHasResolvedWhenTheResolutionReturns() {
    let source = Promise<Int>()
    let log = Recorder<String>()
    let mapped = source.map { $0 + 1 }
    let chained = mapped.then { Promise(value: $0 * 10) }.recover { _ in -1 }
    chained.whenResolved { log.record("chained \($0.value!)") }
    source.whenResolved { log.record("source \($0.value!)") }
    #expect(source.fulfill(1))
    log.record("returned")
    #expect(log.all == ["source 1", "chained 20", "returned"])
  }

  @Test func aResolutionInsideACallbackRunsItsOwnCallbacksAtOnceAndItsChainLater() {
    // The outer resolution is this thread's outermost: the inner promise's callbacks run
    // inside `inner.fulfill`, the promise mapped from it resolves after the callback that
    // resolved `inner` returns, and all of it before `outer.fulfill` returns.
    let outer = Promise<Int>()
    let inner = Promise<Int>()
    let mapped = inner.map { $0 + 1 }
    let log = Recorder<String>()
    inner.whenResolved { log.record("inner callback \($0.value!)") }
    mapped.whenResolved { log.record("mapped callback \($0.value!)") }
    outer.whenResolved { _ in
      inner.fulfill(1)
      log.record("inner.fulfill returned; mapped resolved: \(mapped.isResolved)")
    }
    outer.fulfill(0)
    log.record("outer.fulfill returned")
    #expect(
      log.all == [
        "inner callback 1", "inner.fulfill returned; mapped resolved: false", "mapped callback 2",
        "outer.fulfill returned",
      ])
  }

  @Test func chainsResolveOnTheResolvingThread() async {
    let source = Promise<Int>()
    let threads = Recorder<UInt>()
    let last = source.map { value -> Int in
      threads.record(currentThreadNumber())
      return value + 1
    }.then { value -> Promise<Int> in
      threads.record(currentThreadNumber())
      return Promise(value: value)
    }.recover { _ in 0 }
    last.whenResolved { _ in threads.record(currentThreadNumber()) }
    let resolver = await onNewThread {
      source.fulfill(1)
      return currentThreadNumber()
    }
    #expect(threads.all == [resolver, resolver, resolver])
    #expect(last.result?.value == 2)
  }

  @Test func aStepThatReturnsThePromiseThenReturnedRejectsItWithACycleError() async {
    let source = Promise<Int>()
    let returned = Recorder<Promise<Int>>()
    let chained = source.then { _ in returned.all[0] }
    returned.record(chained)
    let settled = Waiter()
    chained.whenResolved { _ in settled.finish() }
    source.fulfill(1)
    // Bounded: without the check, `chained` would wait for itself forever.
    #expect(await settled.wait(timeout: helperTimeout))
    #expect(throws: PromiseCycleError()) { try chained.result?.get() }
    #expect("\(PromiseCycleError())".contains("PromiseCycleError"))
  }

  @Test func aStepMayReturnAnyOtherPendingPromise() {
    let source = Promise<Int>()
    let step = Promise<Int>()
    let chained = source.then { _ in step }
    source.fulfill(1)
    #expect(!chained.isResolved)
    step.fulfill(2)
    #expect(chained.result?.value == 2)
  }

  @Test func aChainedPromiseDoesNotKeepItsSourceAlive() {
    weak var released: Promise<Int>?
    let mapped: Promise<Int>
    do {
      let source = Promise<Int>()
      released = source
      mapped = source.map { $0 + 1 }
    }
    #expect(released == nil)
    #expect(!mapped.isResolved)  // its source is gone: it never resolves
  }
}

extension Result {
  /// The error, or `nil` for a value.
  fileprivate var failureValue: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
