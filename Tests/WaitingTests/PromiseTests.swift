import Foundation
import Testing
import TinyWaiting
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseTests {
  @Test func startsPendingOrResolved() {
    #expect(Promise<Int>().result == nil)
    #expect(!Promise<Int>().isResolved)
    #expect(Promise(value: 1).result?.value == 1)
    #expect(Promise<Int>(error: TestError(2)).result?.testError == TestError(2))
    #expect(Promise<Int>(result: .success(3)).result?.value == 3)
    #expect(Promise<Int>(result: .failure(TestError(4))).result?.testError == TestError(4))
  }

  @Test(
    "the first resolution wins; later ones return false and change nothing",
    arguments: [
      ["fulfill 1", "fulfill 2"],
      ["fulfill 1", "reject 2"],
      ["reject 1", "fulfill 2"],
      ["reject 1", "reject 2", "fulfill 3"],
      ["resolve 1", "fulfill 2"],
    ])
  func firstResolutionWins(calls: [String]) {
    let promise = Promise<Int>()
    let returned = calls.map { call -> Bool in
      let parts = call.split(separator: " ")
      let number = Int(parts[1])!
      switch parts[0] {
      case "fulfill": return promise.fulfill(number)
      case "reject": return promise.reject(TestError(number))
      default: return promise.resolve(with: .success(number))
      }
    }
    #expect(returned == [true] + Array(repeating: false, count: calls.count - 1))
    if calls[0].hasPrefix("reject") {
      #expect(promise.result?.testError == TestError(1))
    } else {
      #expect(promise.result?.value == 1)
    }
  }

  @Test func aPromiseMadeResolvedCannotBeResolvedAgain() {
    #expect(!Promise(value: 1).fulfill(2))
    #expect(!Promise<Int>(error: TestError()).fulfill(2))
    #expect(!Promise(value: 1).reject(TestError()))
  }

  @Test func voidPromisesFulfilWithoutAnArgument() {
    let done = Promise<Void>()
    #expect(done.fulfill())
    #expect(!done.fulfill())
    #expect(done.isResolved)
  }

  @Test func callbacksRunOnceInRegistrationOrderOnTheResolvingThread() async {
    let promise = Promise<Int>()
    let calls = Recorder<String>()
    for name in ["a", "b", "c"] {
      promise.whenResolved { calls.record("\(name) \($0.value!) \(Thread.isMainThread)") }
    }
    #expect(calls.all.isEmpty)
    let resolvingThread = await onNewThread {
      promise.fulfill(7)
      promise.fulfill(8)
      return calls.all
    }
    // All three ran inside `fulfill`, on the thread that resolved, in order, once.
    #expect(resolvingThread == ["a 7 false", "b 7 false", "c 7 false"])
    #expect(calls.all == resolvingThread)
  }

  @Test func aLateCallbackRunsAtOnceOnTheRegisteringThread() {
    let promise = Promise<Int>(error: TestError(5))
    let calls = Recorder<Int>()
    promise.whenResolved { calls.record($0.testError!.code) }
    #expect(calls.all == [5])
    promise.whenResolved { calls.record($0.testError!.code * 10) }
    #expect(calls.all == [5, 50])
  }

  @Test func callbacksGivenAQueueRunThereAndNeverBeforeReturning() async {
    let queue = DispatchQueue(label: "callbacks")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let resolved = Promise(value: 1)
    let ran = Waiter(count: 2)
    let onQueue = Recorder<Bool>()
    queue.sync {  // holding the serial queue: the callbacks cannot have run yet
      resolved.whenResolved(on: queue) { _ in
        onQueue.record(DispatchQueue.getSpecific(key: key) == 1)
        ran.finish()
      }
      let pending = Promise<Int>()
      pending.whenResolved(on: queue) { _ in
        onQueue.record(DispatchQueue.getSpecific(key: key) == 1)
        ran.finish()
      }
      pending.fulfill(2)
      #expect(onQueue.all.isEmpty)
    }
    #expect(await ran.wait(timeout: helperTimeout))
    #expect(onQueue.all == [true, true])
  }

  @Test func callbacksNeverRunOnTheMainQueueByDefault() async {
    let promise = Promise<Int>()
    let onMain = Recorder<Bool>()
    let done = Waiter(count: 2)
    promise.whenResolved { _ in
      onMain.record(isOnMainQueue())
      done.finish()
    }
    DispatchQueue.global().async {
      promise.fulfill(1)
      promise.whenResolved { _ in
        onMain.record(isOnMainQueue())
        done.finish()
      }
    }
    #expect(await done.wait(timeout: helperTimeout))
    #expect(onMain.all == [false, false])
  }

  @Test func callbacksMayResolveAndRegisterWithoutDeadlock() {
    let promise = Promise<Int>()
    let calls = Recorder<String>()
    promise.whenResolved { result in
      calls.record("first: resolve again → \(promise.fulfill(99))")
      promise.whenResolved { calls.record("nested \($0.value!)") }
    }
    promise.whenResolved { calls.record("second \($0.value!)") }
    promise.fulfill(1)
    #expect(calls.all == ["first: resolve again → false", "nested 1", "second 1"])
  }

  @Test func racingFulfilAndRejectPairsResolveExactlyOnceAndCallEachCallbackOnce() {
    let count = stressVolume(full: 10_000, quick: 2_000)
    let promises = (0..<count).map { _ in Promise<Int>() }
    let calls = Recorder<Int>()
    let wins = Recorder<Bool>()
    for (index, promise) in promises.enumerated() {
      promise.whenResolved { _ in calls.record(index) }
    }
    DispatchQueue.concurrentPerform(iterations: count * 2) { job in
      let promise = promises[job / 2]
      // Each pair: one thread fulfils, another rejects and registers a late callback.
      if job.isMultiple(of: 2) {
        wins.record(promise.fulfill(job))
      } else {
        wins.record(promise.reject(TestError(job)))
        promise.whenResolved { _ in calls.record(count + job / 2) }
      }
    }
    #expect(wins.all.filter { $0 }.count == count)
    let called = calls.all.sorted()
    #expect(called == Array(0..<(2 * count)))
    #expect(promises.allSatisfy { $0.isResolved })
  }

  @Test func aResolvedPromiseHoldsNoCallbacksSoCapturingItMakesNoCycle() {
    weak var released: Promise<Int>?
    do {
      let promise = Promise<Int>()
      released = promise
      promise.whenResolved { _ in _ = promise.result }  // captures itself while pending
      promise.fulfill(1)
    }
    #expect(released == nil)
  }

  @Test func aCallbackRegisteredOnAResolvedPromiseIsNotKept() {
    // It runs at once and is released when the registration returns, while the promise lives on.
    weak var captured: Recorder<Int>?
    let promise = Promise(value: 1)
    do {
      let recorder = Recorder<Int>()
      captured = recorder
      promise.whenResolved { recorder.record($0.value!) }
      #expect(recorder.all == [1])
    }
    #expect(captured == nil)
    withExtendedLifetime(promise) {}
  }

  @Test func anUnresolvedPromiseReleasesItsCallbacksWithIt() {
    weak var captured: Recorder<Int>?
    do {
      let recorder = Recorder<Int>()
      captured = recorder
      let promise = Promise<Int>()
      promise.whenResolved { recorder.record($0.value!) }
    }
    #expect(captured == nil)
  }

  @Test(arguments: [false, true])
  func queuedCallbacksKeepRegistrationOrderWhenOneIsRegisteredDuringTheResolution(
    slowCallbackFirst: Bool
  ) async {
    // The resolving thread is held inside a plain callback, before or after it has sent A to
    // the queue; B is registered meanwhile, from another thread. B must run after A.
    let queue = DispatchQueue(label: "serial")
    let promise = Promise<Int>()
    let order = Recorder<String>()
    let ran = Waiter(count: 2)
    let inside = Gate()
    let release = Gate()
    let slow: @Sendable (Result<Int, any Error>) -> Void = { _ in
      inside.open()
      release.wait()
    }
    if slowCallbackFirst { promise.whenResolved(slow) }
    promise.whenResolved(on: queue) { _ in
      order.record("A")
      ran.finish()
    }
    if !slowCallbackFirst { promise.whenResolved(slow) }
    let resolver = startThread { promise.fulfill(1) }
    await inside.opened()
    promise.whenResolved(on: queue) { _ in
      order.record("B")
      ran.finish()
    }
    release.open()
    await resolver.opened()
    #expect(await ran.wait(timeout: helperTimeout))
    #expect(order.all == ["A", "B"])
  }

  @Test func aQueuedCallbackRegisteredByACallbackRunsAfterTheQueuedOnesBeforeIt() async {
    // The resolving thread itself registers C while it is still delivering: C must run after
    // A and B, which were registered before it.
    let queue = DispatchQueue(label: "serial")
    let promise = Promise<Int>()
    let order = Recorder<String>()
    let ran = Waiter(count: 3)
    let record: @Sendable (String) -> @Sendable (Result<Int, any Error>) -> Void = { name in
      { _ in
        order.record(name)
        ran.finish()
      }
    }
    promise.whenResolved(on: queue, record("A"))
    promise.whenResolved { _ in promise.whenResolved(on: queue, record("C")) }
    promise.whenResolved(on: queue, record("B"))
    promise.fulfill(1)
    #expect(await ran.wait(timeout: helperTimeout))
    #expect(order.all == ["A", "B", "C"])
  }

  @Test func queuedCallbacksFromManyThreadsKeepEachThreadsOrder() async {
    // Registrations race the resolution; each thread's own callbacks must reach the queue in
    // the order that thread registered them.
    let rounds = stressVolume(full: 500, quick: 40)
    for _ in 0..<rounds {
      let queue = DispatchQueue(label: "serial")
      let promise = Promise<Int>()
      let order = Recorder<(thread: Int, index: Int)>()
      let perThread = 20
      let ran = Waiter(count: 3 * perThread)
      await onThreads(4) { thread in
        guard thread < 3 else { return _ = promise.fulfill(1) }
        for index in 0..<perThread {
          promise.whenResolved(on: queue) { _ in
            order.record((thread, index))
            ran.finish()
          }
        }
      }
      #expect(await ran.wait(timeout: helperTimeout))
      for thread in 0..<3 {
        #expect(order.all.filter { $0.thread == thread }.map(\.index) == Array(0..<perThread))
      }
    }
  }

  @Test(arguments: ReentrantCallback.allCases)
  func aCallbackWhoseReleaseUsesThePromiseNeitherTrapsNorHangs(kind: ReentrantCallback) async {
    // The callback is released once the promise resolved, on the resolving thread; its
    // `deinit` uses the same promise in every way.
    let promise = Promise<Int>()
    let used = Recorder<String>()
    let settled = Waiter(count: 3)
    do {
      let reentrant = OnDeinit {
        used.record("fulfill again: \(promise.fulfill(2))")
        used.record("reject again: \(promise.reject(TestError()))")
        used.record("result: \(promise.result?.value ?? -1)")
        promise.whenResolved { used.record("late callback: \($0.value!)") }
        promise.whenResolved(on: .global()) { _ in settled.finish() }
        used.record("map: \(promise.map { $0 + 1 }.result?.value ?? -1)")
        used.record("then: \(promise.then { Promise(value: $0 + 2) }.result?.value ?? -1)")
        used.record("race: \(Promise.race([promise]).result?.value ?? -1)")
        used.record("all: \(Promise.all([promise]).result?.value ?? [])")
        Task {
          _ = try? await promise.value
          settled.finish()
        }
      }
      kind.register(on: promise, holding: reentrant, finishing: settled)
    }
    promise.fulfill(1)
    #expect(await settled.wait(timeout: helperTimeout))
    #expect(
      used.all == [
        "fulfill again: false", "reject again: false", "result: 1", "late callback: 1", "map: 2",
        "then: 3", "race: 1", "all: [1]",
      ])
  }

  @Test func aSecondValueWhoseReleaseUsesThePromiseNeitherTrapsNorHangs() {
    let promise = Promise<OnDeinit>()
    let used = Recorder<String>()
    #expect(promise.fulfill(OnDeinit {}))
    #expect(
      !promise.fulfill(
        OnDeinit {
          used.record("fulfill again: \(promise.fulfill(OnDeinit {}))")
          used.record("resolved: \(promise.isResolved)")
          promise.whenResolved { _ in used.record("late callback") }
        }))
    #expect(used.all == ["fulfill again: false", "resolved: true", "late callback"])
  }

  @Test func aDroppedPendingPromiseReleasesItsCallbacksWithNoLockHeld() {
    // The callbacks' `deinit`s resolve and use another promise, whose callbacks hold more of
    // the same: they all run, one after another.
    let other = Promise<Int>()
    let used = Recorder<String>()
    do {
      let dropped = Promise<Int>()
      let reentrant = OnDeinit {
        used.record("resolve other: \(other.fulfill(1))")
        other.whenResolved { used.record("late on other: \($0.value!)") }
      }
      dropped.whenResolved { _ in _ = reentrant }
      dropped.map { _ in _ = reentrant }.whenResolved { _ in _ = reentrant }
    }
    #expect(used.all == ["resolve other: true", "late on other: 1"])
  }

  @Test func aChainResolvedFromADeinitThatADroppedPromiseSetsOffResolvesWhenTheDeinitReturns() {
    // Freeing the dropped promise's callbacks runs on this thread's queue of chained work, like
    // a callback: the resolution's own callbacks run at once, the promises made from it right
    // after the `deinit` returns, before the drop does.
    let source = Promise<Int>()
    let doubled = source.map { $0 * 2 }
    let used = Recorder<String>()
    _ = pendingPromise(
      holding: OnDeinit {
        source.whenResolved { used.record("own callback: \($0.value!)") }
        used.record("fulfill: \(source.fulfill(21))")
        used.record("doubled in the deinit: \(doubled.result?.value ?? -1)")
      })
    used.record("doubled after the drop: \(doubled.result?.value ?? -1)")
    #expect(
      used.all == [
        "own callback: 21", "fulfill: true", "doubled in the deinit: -1",
        "doubled after the drop: 42",
      ])
  }

  @Test func valuesOfEveryKindComeBackAsTheyWent() async throws {
    // A promise keeps its value as `any Sendable`: optionals, nested optionals, existentials
    // and values too large to fit in an existential's inline buffer come back unchanged.
    let none: Int?? = .some(nil)
    let nested = Promise<Int??>()
    nested.fulfill(none)
    #expect(try await nested.value == none)
    #expect(try await nested.value != nil)
    #expect(try await Promise<Int?>(value: nil).value == nil)
    #expect(try await Promise<any Sendable>(value: 3).value as? Int == 3)
    let wide = SIMD8<Double>(1, 2, 3, 4, 5, 6, 7, 8)
    #expect(try await Promise(value: wide).map { $0 * 2 }.value == wide * 2)
    #expect(try Promise<any Error>(value: TestError(5)).result?.get() as? TestError == TestError(5))
  }

  @Test func aPromiseReleasesItsValueOrErrorWhenItGoesAway() {
    weak var value: Canary?
    weak var error: Canary?
    do {
      let canary = Canary()
      let fulfilled = Promise(value: canary)
      let resolvedLater = Promise<Canary>()
      resolvedLater.fulfill(canary)
      let rejected = Promise<Int>(error: CanaryError(canary: Canary()))
      value = canary
      error = (rejected.result?.error as? CanaryError)?.canary
      #expect(fulfilled.result?.value === canary)
      #expect(resolvedLater.result?.value === canary)
      #expect(error != nil)
    }
    #expect(value == nil)
    #expect(error == nil)
  }

  @Test func aValueDroppedWithItsPromiseMayUseOtherPromises() {
    let other = Promise<Int>()
    do {
      let promise = Promise<OnDeinit>()
      promise.fulfill(OnDeinit { other.fulfill(3) })
    }
    #expect(other.result?.value == 3)
  }
}

/// An error that holds an object, to see when it is released.
private struct CanaryError: Error {
  let canary: Canary
}

/// The ways a promise keeps a closure of the user's until it resolves.
enum ReentrantCallback: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case whenResolved, whenResolvedOnQueue, map, then, recover, value

  var testDescription: String { rawValue }

  /// Registers a closure on `promise` that holds `held` (so `held` is released when the promise
  /// lets the closure go) and finishes `waiter` once.
  func register(on promise: Promise<Int>, holding held: OnDeinit, finishing waiter: Waiter) {
    switch self {
    case .whenResolved:
      promise.whenResolved { _ in
        _ = held
        waiter.finish()
      }
    case .whenResolvedOnQueue:
      promise.whenResolved(on: DispatchQueue(label: "callbacks")) { _ in
        _ = held
        waiter.finish()
      }
    case .map:
      _ = promise.map { _ in
        _ = held
        waiter.finish()
      }
    case .then:
      _ = promise.then { _ in
        _ = held
        waiter.finish()
        return Promise(value: 0)
      }
    case .recover:
      // Never called (the promise is fulfilled); released all the same.
      _ = promise.recover { _ in
        _ = held
        return 0
      }
      waiter.finish()
    case .value:
      Task {
        _ = held
        _ = try? await promise.value
        waiter.finish()
      }
    }
  }
}

/// A pending promise whose one callback holds `object`, so that dropping the promise releases
/// it. Not inlined: the caller's own reference to the callback, which an optimized build may
/// release after the promise, is gone when this returns.
@inline(never)
private func pendingPromise(holding object: consuming OnDeinit) -> Promise<Void> {
  let promise = Promise<Void>()
  promise.whenResolved { [object = consume object] _ in withExtendedLifetime(object) {} }
  return promise
}
