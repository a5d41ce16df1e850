import Foundation
import Testing
import TinyEnvironment
import TinyInternals
import TinyTestSupport

/// How `advance` uses the runtime's global-enqueue hook, and how it lives with a helper that
/// saves and restores that hook as a Bool (swift-concurrency-extras' `withMainSerialExecutor`).
/// The hook belongs to the whole process, and other tests advance clocks in parallel, so each
/// test runs in a process of its own (an exit test).
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ManualClockHookTests {
  @Test func theHookIsInOnlyWhileAClockSettlesAndIsPutBackExactly() async {
    let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await hookIsInOnlyWhileSettling()
    }
    #expect(problems(in: run) == "")
  }

  @Test func aHookThatWasThereStaysAndGetsTheJobsThatAreNotTheClocks() async {
    let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await foreignHookIsKeptAndCalled()
    }
    #expect(problems(in: run) == "")
  }

  @Test func theMainSerialHelperAfterAClockLeavesNoHook() async {
    let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await clockThenMainSerialHelper()
    }
    #expect(problems(in: run) == "")
  }

  @Test func advancingInsideTheMainSerialHelperSettlesAndLeavesNoHook() async {
    let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await advanceInsideMainSerialHelper()
    }
    #expect(problems(in: run) == "")
  }

  /// The limit: a helper that saves the hook while a clock settles saves the clock's hook, and
  /// puts back a hook of its own for good.
  @Test func theMainSerialHelperStartedWhileAClockSettlesKeepsItsHook() async {
    let run = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      await mainSerialHelperStartedWhileSettling()
    }
    #expect(problems(in: run) == "")
  }
}

/// What a hook test's process reported as not holding, one line each.
func problems(in run: ExitTest.Result?) -> String {
  String(decoding: run?.standardErrorContent ?? [], as: UTF8.self)
    .split(separator: "\n").filter { $0.hasPrefix("not so: ") }.joined(separator: "\n")
}

/// In a hook test's process: unless `condition` holds, reports `what` (see `problems(in:)`).
func check(_ condition: Bool, _ what: String) {
  guard !condition else { return }
  FileHandle.standardError.write(Data("not so: \(what)\n".utf8))
}

/// Whether a detached task runs off the main queue (as it does unless a hook sends it there).
func detachedTaskRunsOffTheMainQueue() async -> Bool {
  await value(of: Task.detached { !MainQueue.isCurrent })
}

func hookIsInOnlyWhileSettling() async {
  check(GlobalHook.bits == 0, "no hook at first")
  let clock = ManualClock()
  let during = Recorder<UInt>()
  let sleeper = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    during.record(GlobalHook.bits)
  }
  check(await clock.waitForSleepers(), "the sleeper reaches the clock")
  check(GlobalHook.bits == 0, "a clock and its sleepers install nothing before an advance")
  await clock.advance(by: .seconds(1))
  check(during.all.count == 1 && during.all[0] != 0, "the hook is in while the clock settles")
  check(GlobalHook.bits == 0, "no hook after the advance")
  _ = await result(of: sleeper)
  check(await childrenYield(), "a second advance settles")
  check(GlobalHook.bits == 0, "no hook after the second advance")
}

func foreignHookIsKeptAndCalled() async {
  GlobalHook.variable.pointee = GlobalHook.counting
  let foreign = GlobalHook.bits
  let clock = ManualClock()
  let counted = Recorder<(before: Int, after: Int)>()
  let ran = Gate()
  let sleeper = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    // A task started from a plain thread while the clock settles is not the clock's: it goes
    // to the hook that was there (which counts it) before it runs.
    let before = GlobalHook.countedJobs.value
    startThread {
      Task.detached {
        counted.record((before, GlobalHook.countedJobs.value))
        ran.open()
      }
    }
  }
  check(await clock.waitForSleepers(), "the sleeper reaches the clock")
  await clock.advance(by: .seconds(1))
  check(GlobalHook.bits == foreign, "the hook that was there is back after the advance")
  _ = await result(of: sleeper)
  await ran.opened()
  check(counted.all.allSatisfy { $0.after > $0.before }, "the foreign task went to that hook")
  check(await childrenYield(), "an advance settles with another hook there")
  check(GlobalHook.bits == foreign, "the hook that was there is back after a second advance")
  GlobalHook.variable.pointee = nil
}

func clockThenMainSerialHelper() async {
  check(await childrenYield(), "an advance settles")
  await withMainSerialPattern {}
  check(GlobalHook.bits == 0, "the helper puts back no hook")
  check(await detachedTaskRunsOffTheMainQueue(), "a detached task runs off the main queue")
  check(await childrenYield(), "an advance after the helper settles")
  check(await mainActorPollingLoop(), "a main-actor polling loop polls three times")
  check(GlobalHook.bits == 0, "no hook at the end")
}

func advanceInsideMainSerialHelper() async {
  let settled = Recorder<Bool>()
  await withMainSerialPattern {
    settled.record(await childrenYield())
    settled.record(await mainActorPollingLoop())
  }
  check(settled.all == [true, true], "advances inside the helper settle")
  check(GlobalHook.bits == 0, "the helper puts back no hook")
  check(await detachedTaskRunsOffTheMainQueue(), "a detached task runs off the main queue")
  check(await childrenYield(), "an advance after the helper settles")
  check(GlobalHook.bits == 0, "no hook at the end")
}

func mainSerialHelperStartedWhileSettling() async {
  let clock = ManualClock()
  let sleeper = Task {
    // timing: virtual time, which only the test moves
    try await clock.sleep(for: .seconds(1))
    await withMainSerialPattern {}  // reads the clock's hook as "installed"
  }
  check(await clock.waitForSleepers(), "the sleeper reaches the clock")
  await clock.advance(by: .seconds(1))
  _ = await result(of: sleeper)
  check(GlobalHook.bits != 0, "the helper's hook stays installed")
  check(!(await detachedTaskRunsOffTheMainQueue()), "every task then runs on the main queue")
  GlobalHook.variable.pointee = nil
  check(await detachedTaskRunsOffTheMainQueue(), "removing the hook by hand ends it")
}
