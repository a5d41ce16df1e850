import Dispatch
import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// What `advance` cannot settle, each with what does hold and the pattern a test uses instead.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ManualClockLimitTests {
  /// Main-actor work that hands work straight to the main actor again may still be queued when
  /// `advance` returns; the woken task's own step has run, and the test awaits the rest.
  @Test @MainActor func workHandedFromTheMainActorToTheMainActorIsAwaitedByTheTest() async {
    let clock = ManualClock()
    let steps = Recorder<String>()
    let woken = Task { @MainActor () -> Task<Task<Void, Never>, Never> in
      // timing: virtual time, which only the test moves
      try? await clock.sleep(for: .seconds(1))
      steps.record("woken")
      return Task { @MainActor in Task { @MainActor in steps.record("handed on twice") } }
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(steps.all.first == "woken")
    let handedOn = await value(of: woken)
    await value(of: await value(of: handedOn))
    #expect(steps.all == ["woken", "handed on twice"])
  }

  /// A task that owns a group and is not waiting in `next()` when the clock wakes a child takes
  /// the child's result when it gets there; the test checks it after awaiting the owner.
  @Test func aGroupOwnerBusyElsewhereTakesTheResultAfterTheAdvance() async {
    let clock = ManualClock()
    let elsewhere = Gate()
    let taken = Recorder<String>()
    let owner = Task {
      await withTaskGroup(of: String.self) { group in
        group.addTask {
          // timing: virtual time, which only the test moves
          try? await clock.sleep(for: .seconds(1))
          return "child"
        }
        await elsewhere.opened()  // busy with something else when the child wakes
        if let result = await group.next() { taken.record(result) }
      }
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(taken.all == [])
    elsewhere.open()
    await value(of: owner)
    #expect(taken.all == ["child"])
  }

  /// A task that prefers a task executor of its own is not followed: `advance` returns once its
  /// sleep has ended, and the test awaits the task.
  @Test func aTaskOnItsOwnTaskExecutorIsAwaitedByTheTest() async throws {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
    let clock = ManualClock()
    let woken = Task(executorPreference: QueueExecutor()) { () -> Int in
      // timing: virtual time, which only the test moves
      try await clock.sleep(for: .seconds(1))
      for _ in 0..<3 { await Task.yield() }
      return 42
    }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(try await value(of: woken) == 42)
  }

  /// A woken task that advances another clock: that advance settles what it wakes, and the
  /// woken task goes on after it outside the first clock's settle.
  @Test func aWokenTaskAdvancingAnotherClockIsAwaitedByTheTest() async {
    let outer = ManualClock()
    let inner = ManualClock()
    let steps = Recorder<String>()
    let innerSleeper = Task {
      // timing: virtual time, which only the test moves
      try? await inner.sleep(for: .seconds(1))
      await yielding(2) { steps.record("inner woken") }
    }
    let outerSleeper = Task {
      // timing: virtual time, which only the test moves
      try? await outer.sleep(for: .seconds(1))
      await inner.advance(by: .seconds(1))
      steps.record("inner advanced")
    }
    #expect(await inner.waitForSleepers())
    #expect(await outer.waitForSleepers())
    await outer.advance(by: .seconds(1))
    await value(of: outerSleeper)
    await value(of: innerSleeper)
    #expect(steps.all == ["inner woken", "inner advanced"])
  }

  /// `advance` follows work to the main actor through the main queue. While the main queue does
  /// not run (its thread is blocked), `advance` stops waiting for it after about a second, says
  /// so in one line on standard error, and returns; the next `advance` does not wait for it
  /// again. Each test runs in a process of its own, where blocking the main queue blocks no
  /// other test.
  @Test func advanceStopsWaitingForABlockedMainQueueAndSaysSoOnce() async throws {
    let run = try await #require(
      processExitsWith: .success, observing: [\.standardErrorContent]
    ) {
      exitSuccessfullyIfStillRunning(after: 20)  // a hang fails the checks below instead
      let clock = ManualClock()
      let hops = Counter()
      let offMain = Recorder<Duration>()
      var sleepers: [Task<Void, any Error>] = []
      for _ in 0..<5 {  // a second for each would be five
        sleepers.append(
          Task {
            // timing: virtual time, which only the test moves
            try await clock.sleep(for: .seconds(1))
            await MainActor.run { _ = hops.increment() }
          })
      }
      for seconds in 2...3 {
        sleepers.append(
          Task {
            // timing: virtual time, which only the test moves
            try await clock.sleep(for: .seconds(seconds))
            offMain.record(clock.now.offset)
          })
      }
      #expect(await clock.waitForSleepers(7))
      let blocked = Gate()
      let unblock = Gate()
      DispatchQueue.main.async {
        blocked.open()
        unblock.wait()
      }
      await blocked.opened()
      let started = ContinuousClock.now
      await clock.advance(by: .seconds(2))
      let waited = started.duration(to: .now)
      await clock.advance(by: .seconds(1))
      let stillBlocked = !unblock.isOpen && hops.value == 0
      FileHandle.standardError.write(Data("waited \(waited.seconds) s\n".utf8))
      unblock.open()
      for sleeper in sleepers { _ = await result(of: sleeper) }
      guard stillBlocked, offMain.all == [.seconds(2), .seconds(3)], hops.value == 5 else {
        exit(1)
      }
      // Once the main queue runs again, `advance` follows work there again.
      let later = Task {
        // timing: virtual time, which only the test moves
        try await clock.sleep(for: .seconds(1))
        await MainActor.run { _ = hops.increment() }
      }
      #expect(await clock.waitForSleepers())
      await clock.advance(by: .seconds(1))
      guard hops.value == 6 else { exit(2) }
      _ = await result(of: later)
    }
    let lines = String(decoding: run.standardErrorContent, as: UTF8.self).split(separator: "\n")
    let reports = lines.filter { $0.hasPrefix("ManualClock.advance:") }
    #expect(reports.count == 2)  // one per advance
    let expected: String =
      "ManualClock.advance: stopped following the work woken at +1.0 seconds after 1.0 seconds: "
      + "the main queue did not run, so what that work sent to the main actor could not run (is "
      + "the main thread blocked?); advance returns without it: await that work's task before "
      + "checking what it did"
    #expect(reports.first.map(String.init) == expected)
    let waited = lines.first { $0.hasPrefix("waited ") }?.split(separator: " ")[1]
    // About a second for the six sleepers it woke, not a second for each of them.
    let seconds = waited.flatMap { Double($0) } ?? .infinity
    #expect(seconds < (runsSlowly ? 10 : 4))
  }
}

/// A task executor that runs its jobs one at a time on a queue of its own.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class QueueExecutor: TaskExecutor {
  private let queue = DispatchQueue(label: "QueueExecutor")

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
