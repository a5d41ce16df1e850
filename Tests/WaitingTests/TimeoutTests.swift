import Testing
import TinyTestSupport
import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct TimeoutTests {
  /// Work that ends only when cancelled, recording that it was.
  private static func untilCancelled(_ cancelled: Gate) async throws -> Int {
    do {
      return try await Promise<Int>().value
    } catch {
      cancelled.open()
      throw error
    }
  }

  @Test func theOperationsValueWhenItEndsFirstAndTheTimerLeavesTheClock() async throws {
    let clock = StepClock()
    #expect(try await withTimeout(.seconds(5), clock: clock) { 42 } == 42)
    #expect(clock.sleeperCount == 0)
    #expect(clock.now.offset == .zero)
  }

  @Test func theOperationsErrorWhenItThrowsFirst() async {
    let clock = StepClock()
    await #expect(throws: TestError(7)) {
      try await withTimeout(.seconds(5), clock: clock) { () async throws -> Int in
        throw TestError(7)
      }
    }
    #expect(clock.sleeperCount == 0)
  }

  @Test func aTimeoutErrorAndACancelledOperationWhenTheClockPassesTheTimeoutFirst() async {
    let clock = StepClock()
    let cancelled = Gate()
    let timed = Task {
      try await withTimeout(.seconds(5), clock: clock) { try await Self.untilCancelled(cancelled) }
    }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(4))
    #expect(!cancelled.isOpen)
    clock.advance(by: .seconds(1))
    #expect(
      await TinyTestSupport.result(of: timed).error as? TimeoutError
        == TimeoutError(timeout: .seconds(5)))
    #expect(cancelled.isOpen)
    #expect(clock.sleeperCount == 0)
  }

  @Test func aTimeoutWaitsForAnOperationThatIgnoresCancellation() async {
    let clock = StepClock()
    let release = Gate()
    let order = Recorder<String>()
    let timedOut = Waiter()
    let timed = Task {
      do {
        return try await withTimeout(.seconds(5), clock: clock) { () async -> Int in
          await release.opened()  // ignores the cancellation
          order.record("operation returned")
          return 1
        }
      } catch {
        order.record("\(error)")
        timedOut.finish()
        throw error
      }
    }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(5))
    // bounded: the error comes within microseconds unless it waits for the operation
    #expect(await !timedOut.wait(timeout: .milliseconds(200)))
    release.open()
    #expect(
      await TinyTestSupport.result(of: timed).error as? TimeoutError
        == TimeoutError(timeout: .seconds(5)))
    #expect(
      order.all == [
        "operation returned", "TimeoutError: the work took longer than 5.0 seconds",
      ])
  }

  @Test func aTimeoutOfMoreThanAHundredYearsWaitsAHundredYears() async {
    let clock = StepClock()
    let cancelled = Gate()
    let timed = Task {
      try await withTimeout(.seconds(Int64.max), clock: clock) {
        try await Self.untilCancelled(cancelled)
      }
    }
    await clock.waitForSleepers(1)
    let century = Duration.seconds(100 * 365 * 24 * 3_600)
    clock.advance(by: century - .seconds(1))
    #expect(clock.sleeperCount == 1)
    clock.advance(by: .seconds(1))
    #expect(
      await TinyTestSupport.result(of: timed).error as? TimeoutError
        == TimeoutError(timeout: .seconds(Int64.max)))
    #expect(cancelled.isOpen)
  }

  @Test func cancellingTheCallerCancelsTheOperationAndTheTimer() async {
    // Both end at once, in either order: the caller gets the operation's outcome every time.
    for _ in 0..<20 {
      let clock = StepClock()
      let cancelled = Gate()
      let timed = Task {
        try await withTimeout(.seconds(5), clock: clock) {
          try await Self.untilCancelled(cancelled)
        }
      }
      await clock.waitForSleepers(1)
      timed.cancel()
      #expect(await TinyTestSupport.result(of: timed).error is CancellationError)
      #expect(cancelled.isOpen)
      #expect(clock.sleeperCount == 0)
    }
  }

  @Test func anOperationThatFinishesWhenCancelledGivesItsOwnOutcomeToACancelledCaller() async {
    let clock = StepClock()
    let timed = Task {
      try await withTimeout(.seconds(5), clock: clock) { () async -> String in
        _ = try? await Promise<Int>().value
        return "partial"
      }
    }
    await clock.waitForSleepers(1)
    timed.cancel()
    #expect(await TinyTestSupport.result(of: timed).value == "partial")
  }

  @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
  @Test func aCancelledCallerGetsTheOperationsOutcomeAfterTheStoppedTimer() async {
    // Every job of the caller and its two children runs on a manual executor, so the order is
    // forced: the timer, cancelled with the caller, ends first; the operation, which ignores the
    // cancellation, returns after it. The caller gets the operation's value all the same.
    let executor = ManualExecutor()
    let clock = StepClock()
    let proceed = Gate()
    let timed = Task(executorPreference: executor) {
      try await withTimeout(.seconds(5), clock: clock) { () async -> String in
        await proceed.opened()
        return "the operation's own"
      }
    }
    executor.runUntilIdle()  // the timer sleeps on the clock; the operation waits
    #expect(clock.sleeperCount == 1)
    timed.cancel()  // the timer's sleep throws
    executor.runUntilIdle()  // the timer ends, and the caller has seen it end
    #expect(clock.sleeperCount == 0)
    proceed.open()
    executor.runUntilIdle()
    #expect(await TinyTestSupport.result(of: timed).value == "the operation's own")
  }

  @Test(arguments: [Duration.zero, .nanoseconds(-1), .seconds(-5)])
  func aTimeoutThatIsNotPositiveThrowsAtOnceWithoutRunningTheOperation(timeout: Duration) async {
    let clock = StepClock()
    let runs = Counter()
    await #expect(throws: TimeoutError(timeout: timeout)) {
      try await withTimeout(timeout, clock: clock) { runs.increment() }
    }
    #expect(runs.value == 0)
    #expect(clock.sleeperCount == 0)
  }

  @Test func theContinuousClockByDefaultAndAnyClockOfDurationsDirectly() async throws {
    // Outcomes that are certain on the real clock: a nanosecond for work that never ends, and
    // a day for work that ends at once.
    let cancelled = Gate()
    await #expect(throws: TimeoutError(timeout: .nanoseconds(1))) {
      try await withTimeout(.nanoseconds(1)) { try await Self.untilCancelled(cancelled) }
    }
    #expect(cancelled.isOpen)
    let world: any Clock<Duration> = ContinuousClock()
    #expect(try await withTimeout(.seconds(86_400), clock: world) { 1 } == 1)
    #expect(try await withTimeout(.seconds(86_400), clock: SuspendingClock()) { 2 } == 2)
    #expect(try await Promise(value: 3).value(timeout: .seconds(86_400), clock: world) == 3)
    await #expect(throws: TimeoutError(timeout: .nanoseconds(1))) {
      try await Promise<Int>().value(timeout: .nanoseconds(1))
    }
  }

  @Test func hugeTimeoutsWaitForTheOperation() async throws {
    for timeout in [Duration.seconds(Int64.max), .seconds(1 << 40)] {
      #expect(try await withTimeout(timeout) { await onNewThread { 4 } } == 4)
    }
  }

  @Test func timeoutErrorsAreEqualWhenTheirTimeoutsAreAndNameIt() {
    #expect(TimeoutError(timeout: .seconds(1)) == TimeoutError(timeout: .seconds(1)))
    #expect(TimeoutError(timeout: .seconds(1)) != TimeoutError(timeout: .seconds(2)))
    #expect(
      "\(TimeoutError(timeout: .seconds(5)))"
        == "TimeoutError: the work took longer than 5.0 seconds")
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseValueTimeoutTests {
  @Test func theValueWhenThePromiseResolvesFirstAndTheTimerLeavesTheClock() async throws {
    let clock = StepClock()
    let promise = Promise<Int>()
    let awaiting = Task { try await promise.value(timeout: .seconds(5), clock: clock) }
    await clock.waitForSleepers(1)
    promise.fulfill(8)
    #expect(try await TinyTestSupport.value(of: awaiting) == 8)
    #expect(clock.sleeperCount == 0)
  }

  @Test func aResolvedPromiseAnswersAtOnceWithoutATimer() async throws {
    let clock = StepClock()
    #expect(try await Promise(value: 4).value(timeout: .seconds(5), clock: clock) == 4)
    await #expect(throws: TestError(5)) {
      try await Promise<Int>(error: TestError(5)).value(timeout: .seconds(5), clock: clock)
    }
    #expect(clock.sleepCount == 0)
  }

  @Test func theErrorWhenThePromiseIsRejectedFirst() async {
    let clock = StepClock()
    let promise = Promise<Int>()
    let awaiting = Task { try await promise.value(timeout: .seconds(5), clock: clock) }
    await clock.waitForSleepers(1)
    promise.reject(TestError(3))
    #expect(await TinyTestSupport.result(of: awaiting).testError == TestError(3))
    #expect(clock.sleeperCount == 0)
  }

  @Test func aTimeoutLeavesThePromiseToResolveForOthers() async throws {
    let clock = StepClock()
    let promise = Promise<Int>()
    let seen = Recorder<Int>()
    promise.whenResolved { seen.record($0.value ?? -1) }
    let other = Task { try await promise.value }
    let timed = Task { try await promise.value(timeout: .seconds(5), clock: clock) }
    await clock.waitForSleepers(1)
    clock.advance(by: .seconds(5))
    #expect(
      await TinyTestSupport.result(of: timed).error as? TimeoutError
        == TimeoutError(timeout: .seconds(5)))
    #expect(!promise.isResolved)
    #expect(promise.fulfill(9))
    #expect(try await TinyTestSupport.value(of: other) == 9)
    #expect(seen.all == [9])
    #expect(try await promise.value(timeout: .seconds(5), clock: clock) == 9)
  }

  @Test func cancellingTheCallerStopsTheWaitAndTheTimer() async {
    let clock = StepClock()
    let promise = Promise<Int>()
    let timed = Task { try await promise.value(timeout: .seconds(5), clock: clock) }
    await clock.waitForSleepers(1)
    timed.cancel()
    #expect(await TinyTestSupport.result(of: timed).error is CancellationError)
    #expect(clock.sleeperCount == 0)
    #expect(promise.fulfill(1))
  }

  @Test(arguments: [Duration.zero, .seconds(-1)])
  func aTimeoutThatIsNotPositiveReadsTheResolutionWithoutWaiting(timeout: Duration) async throws {
    let clock = StepClock()
    #expect(try await Promise(value: 5).value(timeout: timeout, clock: clock) == 5)
    await #expect(throws: TestError(6)) {
      try await Promise<Int>(error: TestError(6)).value(timeout: timeout, clock: clock)
    }
    await #expect(throws: TimeoutError(timeout: timeout)) {
      try await Promise<Int>().value(timeout: timeout, clock: clock)
    }
    #expect(clock.sleeperCount == 0)
  }
}
