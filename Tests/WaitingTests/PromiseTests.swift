import Foundation
import Testing
import TinyWaiting
import TinyTestSupport

@Suite struct PromiseTests {
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
    #expect(await ran.wait(timeout: .seconds(30)))
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
    #expect(await done.wait(timeout: .seconds(30)))
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
    let count = 10_000
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
}
