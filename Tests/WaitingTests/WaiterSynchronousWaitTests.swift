import Foundation
import Testing
@testable import TinyWaiting
import XCTest
import TinyTestSupport

/// The synchronous wait where it matters most: XCTest's synchronous tests, on the main thread,
/// with the awaited work done by main-queue blocks and run-loop timers.
final class WaiterSynchronousWaitTests: WatchedTestCase {
  func testXCTestRunsSynchronousTestsOnTheMainThread() {
    // Every other test in this class relies on this.
    XCTAssertTrue(Thread.isMainThread)
  }

  func testMainQueueBlocksAndRunLoopTimersRunDuringTheWait() {
    // The animation case: frames on a run-loop timer, the completion on the main queue.
    let waiter = Waiter()
    let frames = Recorder<Bool>()
    let timer = Timer(timeInterval: 0.01, repeats: true) { timer in
      frames.record(Thread.isMainThread)
      if frames.all.count == 5 {
        timer.invalidate()
        DispatchQueue.main.async { waiter.finish() }
      }
    }
    RunLoop.main.add(timer, forMode: .default)
    XCTAssertTrue(waiter.wait(timeout: helperTimeout))
    XCTAssertEqual(frames.all, [true, true, true, true, true])
  }

  func testAMainQueueBlockAndATimerEachFinishOnce() {
    let waiter = Waiter(count: 2)
    let ran = Recorder<String>()
    DispatchQueue.main.async {
      ran.record("block")
      waiter.finish()
    }
    let timer = Timer(fire: Date(timeIntervalSinceNow: 0.02), interval: 0, repeats: false) { _ in
      ran.record("timer")
      waiter.finish()
    }
    RunLoop.main.add(timer, forMode: .default)
    XCTAssertTrue(waiter.wait(timeout: helperTimeout))
    XCTAssertEqual(Set(ran.all), ["block", "timer"])
  }

  func testWorkDoneAfterTwoTenthsOnTheMainQueueMakesAWaitSucceedWhenItFinishes() {
    let waiter = Waiter()
    let started = ContinuousClock.now
    // timing: the wait must last until late work on the main queue, on the real clock
    DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { waiter.finish() }
    XCTAssertTrue(waiter.wait(timeout: helperTimeout))
    XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(190))
  }

  func testWorkDoneAfterTwoTenthsMakesATenthOfASecondWaitFail() {
    let waiter = Waiter()
    // The work starts once the wait spins the main run loop (the main queue drains only then),
    // so however late this thread gets to the wait, the work finishes after its deadline.
    DispatchQueue.main.async {
      // timing: the work must end after the wait's real-clock deadline
      DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { waiter.finish() }
    }
    let started = ContinuousClock.now
    XCTAssertFalse(waiter.wait(timeout: .milliseconds(100)))
    XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(100))
  }

  func testTheLastFinishWakesTheWaitWithoutWaitingForTheQuantum() {
    // A slice of the main run loop lasts up to a quantum; only the posted main-queue block
    // ends it early. Without that block this wait would last until its 30 s deadline (the
    // quantum is longer); a loaded machine wakes it well within 10 s (3.1 s was seen).
    let waiter = Waiter(quantum: .seconds(60))
    finishOnNewThread(after: 0.05) { waiter.finish() }
    let started = ContinuousClock.now
    XCTAssertTrue(waiter.wait(timeout: .seconds(30)))
    XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
  }

  func testEachQuantumRunsOnTheMainThreadOncePerQuantum() {
    let waiter = Waiter(quantum: .milliseconds(20))
    var calls: [Bool] = []
    let finished = waiter.wait(timeout: .seconds(10)) {
      calls.append(Thread.isMainThread)
      if calls.count == 3 { waiter.finish() }
    }
    XCTAssertTrue(finished)
    XCTAssertEqual(calls, [true, true, true])
  }

  func testEachQuantumDoesNotRunWhenTheWaitEndsWithinTheFirstQuantum() {
    var calls = 0
    let finished = Waiter(quantum: .seconds(1)).wait(timeout: .milliseconds(30)) { calls += 1 }
    XCTAssertFalse(finished)
    XCTAssertEqual(calls, 0)

    let done = Waiter()
    done.finish()
    XCTAssertTrue(done.wait(timeout: .seconds(1)) { calls += 1 })
    XCTAssertEqual(calls, 0)
  }

  /// A waiter waited on again and again keeps nothing of the waits that timed out.
  func testWaitsThatTimeOutLeaveNothingBehind() {
    let waiter = Waiter()
    for _ in 0..<3 {
      XCTAssertFalse(waiter.wait(timeout: .milliseconds(5)))
    }
    XCTAssertEqual(waiter.withState { $0.blockedCount }, 0)
  }

  func testAFinishedWaiterReturnsAtOnceAndZeroTimeoutDoesNotWait() {
    let waiter = Waiter()
    XCTAssertFalse(waiter.wait(timeout: .zero))
    XCTAssertFalse(waiter.wait(timeout: .seconds(-1)))
    waiter.finish()
    XCTAssertTrue(waiter.wait(timeout: .zero))
    XCTAssertTrue(waiter.wait(timeout: .seconds(-1)))
    XCTAssertTrue(waiter.wait(timeout: .seconds(100)))
  }

  func testAZeroOrNegativeTimeoutRunsNothingBeforeItReturns() {
    // It does not wait at all: no quantum, and the main run loop is not spun, so a main-queue
    // block queued before it stays queued.
    let waiter = Waiter()
    let ran = Recorder<String>()
    DispatchQueue.main.async { ran.record("main-queue block") }
    XCTAssertFalse(waiter.wait(timeout: .zero) { ran.record("eachQuantum") })
    XCTAssertFalse(waiter.wait(timeout: .seconds(-1)) { ran.record("eachQuantum") })
    XCTAssertEqual(ran.all, [])
  }

  func testAWaitInsideAMainQueueBlockRunsTimersButNotOtherMainQueueBlocks() {
    // The main queue is serial: while one of its blocks waits, the next block cannot start.
    // Run-loop timers still fire, and a finish from another thread is noticed within the
    // short slices such a wait uses, not at the end of its 5 s quantum.
    let outer = Waiter()
    let results = Recorder<String>()
    DispatchQueue.main.async {
      let blocked = Waiter()
      DispatchQueue.main.async {
        results.record("next block ran")
        outer.finish()
      }
      results.record("wait for a block: \(blocked.wait(timeout: .milliseconds(100)))")

      let timed = Waiter(quantum: .seconds(5))
      RunLoop.main.add(
        Timer(fire: Date(timeIntervalSinceNow: 0.01), interval: 0, repeats: false) { _ in
          timed.finish()
        }, forMode: .default)
      results.record("wait for a timer: \(timed.wait(timeout: .seconds(10)))")

      // Prompt: well before the 30 s deadline, which a missed wake would wait for.
      let background = Waiter(quantum: .seconds(60))
      finishOnNewThread(after: 0.01) { background.finish() }
      let started = ContinuousClock.now
      let finished = background.wait(timeout: .seconds(30))
      results.record(
        "wait for another thread: \(finished), prompt: \(ContinuousClock.now - started < .seconds(10))"
      )
    }
    XCTAssertTrue(outer.wait(timeout: helperTimeout))
    XCTAssertEqual(
      results.all,
      [
        "wait for a block: false", "wait for a timer: true",
        "wait for another thread: true, prompt: true", "next block ran",
      ])
  }
}

/// The synchronous wait off the main thread: it blocks without spinning.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WaiterSynchronousWaitOffTheMainThreadTests {
  @Test func workDoneAfterTwoTenthsMakesAWaitSucceedAndATenthOfASecondWaitFail() async {
    let succeeded = Waiter()
    finishOnNewThread(after: 0.2) { succeeded.finish() }
    #expect(await onNewThread { succeeded.wait(timeout: helperTimeout) })

    // The work starts once the wait has begun (at its first 10 ms quantum), so however late
    // the new thread starts waiting, the work finishes after the 0.1 s deadline.
    let failed = Waiter(quantum: .milliseconds(10))
    let outcome = await onNewThread {
      var workStarted = false
      return failed.wait(timeout: .milliseconds(100)) {
        guard !workStarted else { return }
        workStarted = true
        finishOnNewThread(after: 0.2) { failed.finish() }
      }
    }
    #expect(!outcome)
  }

  @Test func blocksInsteadOfSpinning() async {
    // A spinning wait burns CPU time for as long as it waits (70–210 ms of these 300 ms were
    // measured for a spinning wait on this loaded 2-core machine); a blocked one, almost none.
    let cpuTime = await onNewThread {
      let before = threadCPUTime()
      _ = Waiter(quantum: .seconds(1)).wait(timeout: .milliseconds(300))
      return threadCPUTime() - before
    }
    #expect(cpuTime < .milliseconds(20))
  }

  @Test func theLastFinishWakesTheWaitWithoutWaitingForTheQuantum() async {
    // A missed wake would wait for the 30 s deadline (the quantum is longer); a loaded machine
    // wakes it well within 10 s.
    let waiter = Waiter(count: 2, quantum: .seconds(60))
    finishOnNewThread(after: 0.05) {
      waiter.finish()
      waiter.finish()
    }
    let elapsed = await onNewThread {
      let started = ContinuousClock.now
      return (waiter.wait(timeout: .seconds(30)), ContinuousClock.now - started)
    }
    #expect(elapsed.0)
    #expect(elapsed.1 < .seconds(10))
  }

  @Test func eachQuantumRunsOnTheWaitingThread() async {
    let calls = await onNewThread {
      let waiter = Waiter(quantum: .milliseconds(20))
      let thread = Thread.current
      var calls: [Bool] = []
      let finished = waiter.wait(timeout: .seconds(10)) {
        calls.append(Thread.current == thread)
        if calls.count == 4 { waiter.finish() }
      }
      return (finished, calls)
    }
    #expect(calls.0)
    #expect(calls.1 == [true, true, true, true])
  }

  @Test func aFinishAfterTheDeadlineIsFalseEvenWhenTheWaitSeesItFirst() async {
    // `eachQuantum` runs before the deadline and finishes after it; the waiting thread sees the
    // finish before it notices the deadline, and the result still says the finish was late.
    // (A thread so late that the deadline passes before its first quantum never runs
    // `eachQuantum`: that attempt proves nothing, and the next one tries again.)
    for _ in 0..<5 {
      let waiter = Waiter(quantum: .milliseconds(10))
      let outcome = await onNewThread {
        var ran = false
        let finished = waiter.wait(timeout: .milliseconds(200)) {
          guard !ran else { return }
          ran = true
          // The wait began before this run, so its deadline is less than 200 ms away.
          // timing: eachQuantum must outlast the wait's real-clock deadline
          Thread.sleep(forTimeInterval: 0.25)
          waiter.finish()
        }
        return (ran, finished)
      }
      guard outcome.0 else { continue }
      #expect(!outcome.1)
      #expect(waiter.isFinished)
      return
    }
    Issue.record("the waiting thread never ran eachQuantum before its deadline")
  }

  @Test func manyThreadsWaitOnOneWaiter() async {
    let waiter = Waiter()
    async let results = withTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask { await onNewThread { waiter.wait(timeout: .seconds(10)) } }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    finishOnNewThread(after: 0.05) { waiter.finish() }
    #expect(await results == Array(repeating: true, count: 8))
  }
}

/// The CPU time the calling thread has used.
private func threadCPUTime() -> Duration {
  var time = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
  return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
}

extension WaiterSynchronousWaitOffTheMainThreadTests {
  static let hugeDurations = [Duration.seconds(Int64.max), .seconds(1 << 40), .seconds(3_600)]

  @Test(arguments: hugeDurations)
  func hugeTimeoutsWaitForTheFinish(timeout: Duration) async {
    // Finished from `eachQuantum`, so the wait has begun (and sliced its huge timeout).
    let waiter = Waiter(quantum: .milliseconds(10))
    #expect(await onNewThread { waiter.wait(timeout: timeout) { waiter.finish() } })
  }

  @Test(arguments: hugeDurations)
  func hugeQuantaWaitForTheTimeout(quantum: Duration) async {
    let waiter = Waiter(quantum: quantum)
    let calls = Counter()
    #expect(await !onNewThread { waiter.wait(timeout: .milliseconds(30)) { calls.increment() } })
    #expect(calls.value == 0)
  }

  @Test(arguments: hugeDurations)
  func hugeQuantaAndTimeoutsWaitForAFinishFromAnotherThread(duration: Duration) async {
    let waiter = Waiter(quantum: duration)
    let finisher = startThread { waiter.finish() }
    #expect(await onNewThread { waiter.wait(timeout: duration) })
    await finisher.opened()
  }

  @Test func theLastFinishFromAnotherThreadReturnsOnlyOnceARunningEachQuantumHasReturned() async {
    // The race, forced: a run of `eachQuantum` has begun when another thread makes the last
    // finish(). That finish must not return while the run goes on, and once it has returned no
    // run may start; an asynchronous wait on the same waiter is woken all the same.
    let waiter = Waiter(quantum: .nanoseconds(1))
    let finishing = Gate()
    let finishReturned = Waiter()
    let asynchronous = Task { await waiter.wait(timeout: helperTimeout) }
    let outcome = await onNewThread {
      var runs = 0
      var returnedDuringTheRun = false
      var runsAfterTheFinishReturned = 0
      let finished = waiter.wait(timeout: .seconds(30)) {
        if finishReturned.isFinished { runsAfterTheFinishReturned += 1 }
        runs += 1
        guard runs == 1 else { return }
        startThread {
          finishing.open()
          waiter.finish()
          finishReturned.finish()
        }
        finishing.wait()
        // bounded: the finish returns within microseconds unless it waits for this run
        returnedDuringTheRun = finishReturned.wait(timeout: .milliseconds(200))
      }
      return (finished, returnedDuringTheRun, runsAfterTheFinishReturned)
    }
    #expect(outcome.0)
    #expect(!outcome.1)
    #expect(outcome.2 == 0)
    // The run has returned: the finish returns at once, not at the wait's deadline.
    #expect(await finishReturned.wait(timeout: .seconds(10)))
    #expect(await TinyTestSupport.value(of: asynchronous))
  }

  @Test func noEachQuantumRunStartsAfterTheLastFinishReturnsOnAnotherThread() async {
    // The same race left to chance, as often as the volume allows: a quantum of a nanosecond,
    // so that runs start back to back while another thread makes the last finish().
    let late = Counter()
    for _ in 0..<stressVolume(full: 2_000, quick: 20) {
      let waiter = Waiter(quantum: .nanoseconds(1))
      let finishReturned = Gate()
      let started = Gate()
      let waiting = startThread {
        _ = waiter.wait(timeout: .seconds(30)) {
          started.open()
          if finishReturned.isOpen { late.increment() }
        }
      }
      await started.opened()
      await onNewThread {
        waiter.finish()
        finishReturned.open()
      }
      await waiting.opened()
    }
    #expect(late.value == 0)
  }

  @Test func aLastFinishThatEachQuantumWaitsForReturnsAtTheWaitsDeadline() async {
    // eachQuantum waits for another thread's finish(), which waits for eachQuantum to return:
    // at the wait's deadline the finish gives up waiting, so neither hangs. The finish came in
    // time, so the wait returns true, and no run starts after it.
    let waiter = Waiter(quantum: .milliseconds(1))
    let outcome = await onNewThread {
      var runs = 0
      let started = ContinuousClock.now
      let finished = waiter.wait(timeout: .milliseconds(300)) {
        runs += 1
        if runs == 1 { _ = onNewThreadBlocking { waiter.finish() } }
      }
      return (finished, runs, ContinuousClock.now - started)
    }
    #expect(outcome.0)
    #expect(outcome.1 == 1)
    #expect(outcome.2 >= .milliseconds(250))
  }

  @Test func eachQuantumSkipsTheQuantaItFellBehindOn() async {
    // The first run takes 25 of the wait's 60 quanta. Making the missed quanta up would be a
    // run for each of the 59 quanta; skipping them leaves one run as soon as it can, then one
    // per quantum: at most 1 + 1 + 34 runs in all, fewer when the thread runs late.
    let waiter = Waiter(quantum: .milliseconds(10))
    let runs = await onNewThread {
      var runs = 0
      _ = waiter.wait(timeout: .milliseconds(600)) {
        runs += 1
        // timing: the first run must fall 25 real-clock quanta behind
        if runs == 1 { Thread.sleep(forTimeInterval: 0.25) }
      }
      return runs
    }
    #expect(runs >= 1)
    #expect(runs <= 45)
  }

}
