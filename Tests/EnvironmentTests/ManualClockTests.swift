import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ManualClockTests {
  @Test func timeStandsStillUntilTheTestMovesIt() async throws {
    let clock = ManualClock()
    #expect(clock.now == .init())
    // timing: virtual time, which only the test moves
    let nap = Task { try await clock.sleep(for: .seconds(3600)) }
    #expect(await clock.waitForSleepers())
    #expect(clock.now.offset == .zero)
    await clock.advance(by: .seconds(3599))
    #expect(clock.sleeperCount == 1)
    await clock.advance(to: .init(offset: .seconds(3600)))
    try await value(of: nap)
    #expect(clock.now.offset == .seconds(3600))
    #expect(clock.sleeperCount == 0)
  }

  @Test func sleepersWakeInDeadlineOrderAndTiesInTheOrderTheySlept() async {
    let clock = ManualClock()
    let woken = Recorder<String>()
    let deadlines: [(String, Duration)] = [
      ("c", .seconds(3)), ("a1", .seconds(1)), ("b", .seconds(2)),
    ]
    var tasks: [Task<Void, Never>] = []
    for (name, delay) in deadlines {
      tasks.append(
        Task {
          // timing: virtual time, which only the test moves
          try? await clock.sleep(for: delay)
          woken.record("\(name)@\(clock.now.offset)")
        })
      #expect(await clock.waitForSleepers(tasks.count))  // registered in this order
    }
    tasks.append(
      Task {
        // timing: virtual time, which only the test moves
        try? await clock.sleep(for: .seconds(1))
        woken.record("a2@\(clock.now.offset)")
      })
    #expect(await clock.waitForSleepers(4))
    await clock.advance(by: .seconds(5))
    #expect(woken.all == ["a1@1.0 seconds", "a2@1.0 seconds", "b@2.0 seconds", "c@3.0 seconds"])
    for task in tasks { await value(of: task) }
  }

  @Test func zeroAndNegativeSleepsReturnAtOnce() async throws {
    let clock = ManualClock()
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .zero)
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(-5))
    // timing: virtual time, which only the test moves
    try await clock.sleep(until: clock.now)
    #expect(clock.sleeperCount == 0)
    #expect(clock.now.offset == .zero)
  }

  @Test func aCancelledSleeperThrowsAtOnceAndLeavesTheClock() async {
    let clock = ManualClock()
    // timing: virtual time, which only the test moves
    let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
    #expect(await clock.waitForSleepers())
    sleeper.cancel()
    await #expect(throws: CancellationError.self) { try await value(of: sleeper) }
    #expect(clock.sleeperCount == 0)
    await clock.advance(by: .seconds(10))  // nothing left to wake
    #expect(clock.now.offset == .seconds(10))
  }

  @Test func aSleepStartedInACancelledTaskThrowsAtOnce() async {
    let clock = ManualClock()
    let started = Gate()
    let sleeper = Task {
      await started.opened()
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .seconds(10))
    }
    sleeper.cancel()
    started.open()
    await #expect(throws: CancellationError.self) { try await value(of: sleeper) }
    #expect(clock.sleeperCount == 0)
  }

  @Test func aSleepInACancelledTaskThrowsEvenWhenItsDeadlineHasPassed() async {
    let clock = ManualClock()
    let started = Gate()
    let sleeper = Task {
      await started.opened()
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .zero)
    }
    sleeper.cancel()
    started.open()
    await #expect(throws: CancellationError.self) { try await value(of: sleeper) }
  }

  @Test func aWokenTaskThatSleepsAgainWithinTheAdvanceIsWokenAgain() async {
    let clock = ManualClock()
    let ticks = Counter()
    let ticker = Task {
      // timing: virtual time, which only the test moves
      while (try? await clock.sleep(for: .seconds(1))) != nil {
        ticks.increment()
      }
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(5))
    #expect(ticks.value == 5)
    ticker.cancel()
    await value(of: ticker)
  }

  @Test func workAWokenTaskStartsHasRunWhenAdvanceReturns() async {
    let clock = ManualClock()
    let done = Recorder<String>()
    let parent = Task {
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .seconds(1))
      let child = Task { done.record("child task") }
      async let structured: Void = done.record("async let")
      await structured
      _ = child
      await withTaskGroup(of: Void.self) { group in
        group.addTask { done.record("group child") }
      }
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(Set(done.all) == ["child task", "async let", "group child"])
    await value(of: parent)
  }

  @Test func tasksAWokenTaskStartsHaveDoneTheirWorkWhenAdvanceReturns() async {
    let clock = ManualClock()
    let sums = Recorder<Int>()
    let parent = Task {
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .seconds(1))
      for worker in 1...8 {
        Task {  // nobody awaits it
          var sum = 0
          for step in 0..<20_000 {
            sum &+= step % worker
            if step.isMultiple(of: 5_000) { await Task.yield() }
          }
          sums.record(sum)
        }
      }
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(sums.count == 8)
    await value(of: parent)
  }

  /// A task that the thread which called `advance` starts next, for other work, is not followed,
  /// even after a wake that did not pass through the runtime's hook (a sleeper on a task
  /// executor of its own) and so never took the thread's claim on its next enqueue.
  @Test func aTaskTheAdvancingThreadStartsNextForOtherWorkIsNotFollowed() async {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
    let clock = ManualClock()
    let (otherStarted, advanced, otherEnded) = (Gate(), Gate(), Gate())
    let seen = Recorder<String>()
    let onItsExecutor = Task(executorPreference: QueueExecutor()) {
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .seconds(1))
    }
    let later = Task {
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .seconds(2))
      otherStarted.wait()  // its settle is under way until the other task has started
    }
    #expect(await clock.waitForSleepers(2))
    let executor = QueueExecutor()
    let advancing = Task(executorPreference: executor) {
      // Queued behind this job on the executor's queue: it runs next, on the advancing thread.
      Task(executorPreference: executor) {
        Task.detached {
          let deadline = ContinuousClock.now + .seconds(5)
          // timing: a real bound, reached only when the advance waits for this task
          while !advanced.isOpen, ContinuousClock.now < deadline { await Task.yield() }
          seen.record(advanced.isOpen ? "went on beside the advance" : "held the advance back")
          otherEnded.open()
        }
        otherStarted.open()
      }
      await clock.advance(by: .seconds(2))
    }
    await value(of: advancing)
    advanced.open()
    await otherEnded.opened()
    await value(of: onItsExecutor)
    await value(of: later)
    #expect(seen.all == ["went on beside the advance"])
  }

  @Test func runWakesEverySleeperAndStopsAfterMaxSteps() async {
    let clock = ManualClock()
    // timing: virtual time, which only the test moves
    let naps = (1...3).map { hours in Task { try await clock.sleep(for: .seconds(3600 * hours)) } }
    #expect(await clock.waitForSleepers(3))
    #expect(await clock.run())
    #expect(clock.now.offset == .seconds(3 * 3600))
    for nap in naps { #expect(await result(of: nap).isSuccess) }
    let forever = Task {
      // timing: virtual time, which only the test moves
      while (try? await clock.sleep(for: .seconds(1))) != nil {}
    }
    #expect(await clock.waitForSleepers())
    #expect(await clock.run(maxSteps: 10) == false)
    #expect(clock.now.offset == .seconds(3 * 3600 + 10))
    forever.cancel()
    await value(of: forever)
  }

  @Test func waitForSleepersGivesUpAtItsTimeout() async {
    let clock = ManualClock()
    #expect(await clock.waitForSleepers(0))
    #expect(await clock.waitForSleepers(1, timeout: .milliseconds(10)) == false)
  }

  @Test func aCancelledWaitForSleepersReturnsFalseAtOnce() async {
    let clock = ManualClock()
    let started = Gate()
    let waiting = Task {
      started.open()
      return await clock.waitForSleepers(1, timeout: .seconds(3_600))
    }
    await started.opened()
    waiting.cancel()
    #expect(await value(of: waiting) == false)
    let cancelledBefore = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await clock.waitForSleepers(1, timeout: .seconds(3_600))
    }
    #expect(await value(of: cancelledBefore) == false)
    // A cancelled task whose count is already reached still gets `true`.
    let nap = Task {
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .seconds(1))
    }
    #expect(await clock.waitForSleepers())
    let satisfied = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await clock.waitForSleepers(1, timeout: .seconds(3_600))
    }
    #expect(await value(of: satisfied))
    nap.cancel()
    _ = await TinyTestSupport.result(of: nap)
  }

  @Test func manySleepersOnOneDeadlineWakeInTheOrderTheySlept() async {
    // Adding a sleeper is a binary search: 400 sleepers on two deadlines, each registered after
    // the one before, wake by deadline and then first to last.
    let clock = ManualClock()
    let woken = Recorder<Int>()
    var tasks: [Task<Void, Never>] = []
    for index in 0..<400 {
      tasks.append(
        Task {
          // timing: virtual time, which only the test moves
          try? await clock.sleep(for: .seconds(index.isMultiple(of: 2) ? 1 : 2))
          woken.record(index)
        })
      #expect(await clock.waitForSleepers(index + 1))
    }
    await clock.advance(by: .seconds(2))
    let evens = Array(stride(from: 0, to: 400, by: 2))
    #expect(woken.all == evens + evens.map { $0 + 1 })
    for task in tasks { await value(of: task) }
  }

  @Test func advancesFromTwoTasksTakeTurns() async {
    let clock = ManualClock()
    let woken = Counter()
    let sleepers = (0..<10).map { _ in
      Task {
        // timing: virtual time, which only the test moves
        try? await clock.sleep(for: .seconds(1))
        woken.increment()
      }
    }
    #expect(await clock.waitForSleepers(10))
    async let first: Void = clock.advance(by: .seconds(1))
    async let second: Void = clock.advance(by: .seconds(1))
    _ = await (first, second)
    #expect(woken.value == 10)
    #expect(clock.now.offset == .seconds(2))
    for sleeper in sleepers { await value(of: sleeper) }
  }

  @Test func queuedAdvancesEachMoveOnFromWhereThePreviousOneEnded() async {
    // Four advances of one second wait for their turns while a first one settles a task that
    // blocks its thread (the test lets it go): each then wakes what is due by its own target,
    // one second after the previous one's, and time ends four seconds later, not one.
    guard #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) else { return }
    let clock = ManualClock()
    let reached = Gate()
    let hold = Gate()
    let woken = Recorder<String>()
    var sleepers = [
      Task {
        // timing: virtual time, which only the test moves
        try? await clock.sleep(for: .seconds(1))
        reached.open()
        hold.wait()  // holds the first advance's turn
      }
    ]
    for second in 2...5 {
      sleepers.append(
        Task {
          // timing: virtual time, which only the test moves
          try? await clock.sleep(for: .seconds(second))
          woken.record("\(second) s woken at \(clock.now.offset)")
        })
    }
    #expect(await clock.waitForSleepers(5))
    let first = Task { await clock.advance(by: .seconds(1)) }
    // On a thread of its own: a task that the settled work resumed would run in the settle,
    // behind the blocked thread. Immediate tasks run there until they suspend: each is in line
    // for its turn when made.
    let queued = await onNewThread {
      reached.wait()
      defer { hold.open() }
      return (0..<4).map { _ in Task.immediate { await clock.advance(by: .seconds(1)) } }
    }
    await value(of: first)
    for advance in queued { await value(of: advance) }
    #expect(clock.now.offset == .seconds(5))
    #expect(
      woken.all == (2...5).map { "\($0) s woken at \(Duration.seconds($0))" })
    for sleeper in sleepers {
      sleeper.cancel()  // none is left unless the advances went wrong
      await value(of: sleeper)
    }
  }

  @Test func advancingToTheCurrentInstantReturnsAndWakesNothing() async {
    let clock = ManualClock()
    await clock.advance(by: .seconds(2))
    // timing: virtual time, which only the test moves
    let sleeper = Task { try await clock.sleep(for: .seconds(1)) }
    #expect(await clock.waitForSleepers())
    await clock.advance(to: clock.now)
    await clock.advance(to: .init(offset: .seconds(2)))
    #expect(clock.now.offset == .seconds(2))
    #expect(clock.sleeperCount == 1)
    sleeper.cancel()
    _ = await result(of: sleeper)
  }

  @Test func movingTimeBackwardsStopsTheProgram() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      await ManualClock().advance(by: .seconds(-1))
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("ManualClock.advance(by:): -1.0 seconds is negative"))
    let backwards = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let clock = ManualClock()
      await clock.advance(by: .seconds(2))
      await clock.advance(to: .init(offset: .seconds(1)))
    }
    let text = String(decoding: backwards?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains("ManualClock.advance(to:): +1.0 seconds is before now (+2.0 seconds)"))
  }

  @Test func anInstantOutOfTheClocksRangeStopsTheProgramNamingTheCall() async {
    let advance = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let clock = ManualClock()
      await clock.advance(by: .seconds(1e20))
      await clock.advance(by: .seconds(1e20))
    }
    let message = String(decoding: advance?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("ManualClock.advance(by:): +1e+20 seconds plus 1e+20 seconds"))
    #expect(message.contains("out of the clock's range"))
    let instant = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = ManualClock.Instant(offset: .seconds(-1e20)).advanced(by: .seconds(-1e20))
    }
    let text = String(decoding: instant?.standardErrorContent ?? [], as: UTF8.self)
    #expect(text.contains("ManualClock.Instant.advanced(by:): +-1e+20 seconds plus -1e+20"))
    // The far end of the range is fine, up to the range's very end on either side.
    let far = ManualClock.Instant().advanced(by: .seconds(1.6e20))
    #expect(far.advanced(by: .seconds(-1.6e20)) == ManualClock.Instant())
    let start = ManualClock.Instant()
    let end = Duration.seconds(Int64.max) * 18
    #expect(start.advanced(by: end).duration(to: start) == .zero - end)
    #expect(start.advanced(by: .zero - end).duration(to: start) == end)
  }

  @Test func advancingFromTheWorkItSettlesStopsTheProgram() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let clock = ManualClock()
      let task = Task {
        // timing: virtual time, which only the test moves
        try await clock.sleep(for: .seconds(1))
        await clock.advance(by: .seconds(1))
      }
      #expect(await clock.waitForSleepers())
      await clock.advance(by: .seconds(1))
      _ = await TinyTestSupport.result(of: task)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("ManualClock.advance: called from work that this clock's advance"))
  }

  @Test func runningFromTheWorkItSettlesStopsTheProgram() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let clock = ManualClock()
      let task = Task {
        // timing: virtual time, which only the test moves
        try await clock.sleep(for: .seconds(1))
        _ = await clock.run()
      }
      #expect(await clock.waitForSleepers())
      await clock.advance(by: .seconds(1))
      _ = await TinyTestSupport.result(of: task)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("called from work that this clock's advance is settling"))
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ImmediateClockTests {
  @Test func sleepsReturnAtOnceAndCountVirtualTime() async throws {
    let clock = ImmediateClock()
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(90))
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(30))
    #expect(clock.now.offset == .seconds(120))
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(-5))
    // timing: virtual time, which only the test moves
    try await clock.sleep(until: .init(offset: .seconds(10)))
    #expect(clock.now.offset == .seconds(120))
  }

  @Test func aCancelledSleepThrowsAndMovesNothing() async {
    let clock = ImmediateClock()
    let gate = Gate()
    let task = Task {
      await gate.opened()
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .seconds(5))
    }
    task.cancel()
    gate.open()
    await #expect(throws: CancellationError.self) { try await value(of: task) }
    #expect(clock.now.offset == .zero)
  }

  @Test func aRetryLoopRunsInNoTime() async throws {
    let calls = Counter()
    let clock = ImmediateClock()
    let value = try await withWorld(.mock) { () async throws -> String in
      Current.clock = clock
      return try await retrying(attempts: 4) { () async throws -> String in
        if calls.increment() < 4 { throw TimeoutError() }
        return "done"
      }
    }
    #expect(value == "done")
    #expect(clock.now.offset == .seconds(7))
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WorldClockTests {
  @Test func theLiveWorldUsesTheContinuousClockAndTheMockAManualOne() {
    #expect(World.live.clock is ContinuousClock)
    #expect(World.mock.clock is ManualClock)
    #expect(World.mock.clock as? ManualClock !== World.mock.clock as? ManualClock)
  }

  @Test func inAMockWorldTheDateFollowsTheClock() async {
    let clock = ManualClock()
    await withWorld(.mock) { () async in
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 0))
      Current.clock = clock
      await clock.advance(by: .seconds(90))
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 90))
      let immediate = ImmediateClock()
      Current.clock = immediate
      // timing: virtual time, which only the test moves
      try? await Current.clock.sleep(for: .seconds(30))
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 30))
      Current.clock = ContinuousClock()
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 0))
    }
  }

  @Test func aDateSetByTheTestKeepsItsOwn() async {
    let clock = ManualClock()
    await withWorld(.mock) { () async in
      Current.date = { .distantPast }
      Current.clock = clock
      await clock.advance(by: .seconds(90))
      #expect(Current.date() == .distantPast)
    }
    var world = World.mock
    world.date = { .distantFuture }
    world.clock = ManualClock()
    #expect(world.date() == .distantFuture)
  }

  @Test func theMockWorldsOwnClockMovesItsDate() async {
    let world = World.mock
    let clock = world.clock as! ManualClock
    await clock.advance(by: .seconds(60))
    #expect(world.date() == Date(timeIntervalSinceReferenceDate: 60))
  }

  @Test func theLiveClockSleepsForReal() async throws {
    let before = ContinuousClock.now
    // timing: the live clock must really wait; one millisecond keeps the test fast.
    try await World.live.clock.sleep(for: .milliseconds(1))
    #expect(ContinuousClock.now - before >= .milliseconds(1))
  }
}

extension Result {
  var isSuccess: Bool {
    if case .success = self { return true }
    return false
  }
}
