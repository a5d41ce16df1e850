import Dispatch
import Testing
import TinyTestSupport
import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WaiterTests {
  @Test(
    "finish() counts up to the expected count, then reports extras",
    arguments: [
      (1, 1, [true], true),
      (1, 3, [true, false, false], true),
      (2, 1, [true], false),
      (2, 2, [true, true], true),
      (3, 2, [true, true], false),
      (3, 5, [true, true, true, false, false], true),
    ] as [(Int, Int, [Bool], Bool)])
  func finishCounts(count: Int, calls: Int, returned: [Bool], finished: Bool) {
    let waiter = Waiter(count: count)
    #expect(waiter.expectedCount == count)
    #expect(!waiter.isFinished)
    #expect((0..<calls).map { _ in waiter.finish() } == returned)
    #expect(waiter.isFinished == finished)
  }

  @Test func defaultsToOneFinishAndATenthOfASecondQuantum() {
    let waiter = Waiter()
    #expect(waiter.expectedCount == 1)
    #expect(waiter.quantum == .milliseconds(100))
    #expect(Waiter(quantum: .nanoseconds(1)).quantum == .nanoseconds(1))
  }

  @Test func finishingBeforeAnyoneWaitsCounts() async {
    let waiter = Waiter(count: 2)
    waiter.finish()
    waiter.finish()
    #expect(await waiter.wait(timeout: .seconds(1)))
  }

  @Test func aCountBelowOneIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) { _ = Waiter(count: 0) }
    await #expect(processExitsWith: .failure) { _ = Waiter(count: -1) }
    await #expect(processExitsWith: .failure) { _ = Waiter(count: .min) }
  }

  @Test func aQuantumThatIsNotPositiveIsAProgrammerError() async {
    await #expect(processExitsWith: .failure) { _ = Waiter(quantum: .zero) }
    await #expect(processExitsWith: .failure) { _ = Waiter(quantum: .milliseconds(-1)) }
  }

  @Test func theTrapMessagesNameTheInitializerAndTheBadValue() async throws {
    let count = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = Waiter(count: 0) }
    #expect(
      String(decoding: count.standardErrorContent, as: UTF8.self).contains(
        "Waiter(count:quantum:): count must be at least 1, got 0"))
    let quantum = try await #require(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) { _ = Waiter(quantum: .seconds(-2)) }
    #expect(
      String(decoding: quantum.standardErrorContent, as: UTF8.self).contains(
        "Waiter(count:quantum:): quantum must be positive, got -2.0 seconds"))
  }

  @Test func concurrentFinishesCountExactlyOnceEach() async {
    // 10,000 calls from many threads for a waiter expecting 6,000: exactly 6,000 count.
    let calls = stressVolume(full: 100_000, quick: 10_000)
    let waiter = Waiter(count: calls * 6 / 10)
    let counted = Counter()
    DispatchQueue.concurrentPerform(iterations: calls) { _ in
      if waiter.finish() { counted.increment() }
    }
    #expect(counted.value == calls * 6 / 10)
    #expect(waiter.isFinished)
  }

  @Test func aDeinitMayFinishAndWaitOnTheWaiterWhereverItRuns() async {
    // A waiter keeps nothing of the caller's, so a `deinit` that calls into it may run
    // anywhere: in a promise callback's release, inside `eachQuantum`, inside a wait.
    let waiter = Waiter(count: 2)
    let promise = Promise<Int>()
    let seen = Recorder<String>()
    do {
      let finisher = OnDeinit {
        seen.record("finish: \(waiter.finish()), finished: \(waiter.isFinished)")
        seen.record("zero wait: \(waiter.wait(timeout: .zero))")
      }
      promise.whenResolved { _ in _ = finisher }
    }
    promise.fulfill(1)
    let finished = await onNewThread {
      waiter.wait(timeout: .seconds(30)) {
        _ = OnDeinit { seen.record("finish in a quantum: \(waiter.finish())") }
      }
    }
    #expect(finished)
    #expect(
      seen.all == [
        "finish: true, finished: false", "zero wait: false", "finish in a quantum: true",
      ])
  }
}
