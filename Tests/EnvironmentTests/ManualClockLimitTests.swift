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

  /// `advance` runs rounds through the main queue: while the main queue is blocked, it waits.
  @Test func advanceWaitsWhileTheMainQueueIsBlocked() async {
    await #expect(processExitsWith: .success) {
      let clock = ManualClock()
      let sleeper = Task {
        // timing: virtual time, which only the test moves
        try await clock.sleep(for: .seconds(1))
      }
      #expect(await clock.waitForSleepers())
      let unblock = Gate()
      DispatchQueue.main.async { unblock.wait() }
      let advanced = Gate()
      Task {
        await clock.advance(by: .seconds(1))
        advanced.open()
      }
      // Real time shows that the advance does not return while the main queue is blocked.
      // timing: 100 ms of it keeps the test fast.
      try? await Task.sleep(for: .milliseconds(100))
      guard !advanced.isOpen else { exit(1) }
      unblock.open()
      await advanced.opened()
      _ = await result(of: sleeper)
    }
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
