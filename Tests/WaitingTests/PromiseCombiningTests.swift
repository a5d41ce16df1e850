import Dispatch
import Testing
import TinyTestSupport
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseCombiningTests {
  @Test func anInputThatResolvedFirstAndWasDroppedStillDecides() {
    // The window this covers: input `a` resolves first and runs its callbacks (which report
    // it), and is dropped, while the callback of `b`, which claimed the decision, has not yet
    // looked at the inputs. Replayed in that order, on one thread.
    let b = Promise<Int>()
    let inputs: CombinatorInputs<Int>
    do {
      let a = Promise<Int>()
      inputs = CombinatorInputs([a, b])
      a.reject(TestError(1))
      inputs.report(a.resolution!, at: 0)
    }
    b.reject(TestError(2))
    inputs.report(b.resolution!, at: 1)
    #expect(inputs.claim())
    #expect(
      inputs.firstResolution(rejectionsOnly: false)?.result(of: Int.self).testError?.code == 1)
    #expect(inputs.firstResolution(rejectionsOnly: true)?.result(of: Int.self).testError?.code == 1)
  }

  @Test func aReportReplacedByAnEarlierOneIsReleasedWithNoLockHeld() {
    // `a` resolved after `b` but reported first, and is gone: its report holds the last
    // reference to its value, whose `deinit` reads the reports again when `b`'s earlier report
    // replaces it.
    let b = Promise<OnDeinit>()
    let inputs: CombinatorInputs<OnDeinit>
    let seen = Recorder<Bool>()
    do {
      let a = Promise<OnDeinit>()
      inputs = CombinatorInputs([a, b])
      b.fulfill(OnDeinit {})
      a.fulfill(OnDeinit { seen.record(inputs.firstResolution(rejectionsOnly: false) != nil) })
      inputs.report(a.resolution!, at: 0)
    }
    inputs.report(b.resolution!, at: 1)
    #expect(seen.all == [true])
  }

  @Test func allKeepsInputOrderWhateverTheArrivalOrder() {
    let promises = (0..<4).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    for index in [2, 0, 3] {
      promises[index].fulfill(index * 10)
      #expect(!all.isResolved)
    }
    promises[1].fulfill(10)
    #expect(all.result?.value == [0, 10, 20, 30])
  }

  @Test func allOfNothingIsFulfilledAtOnceWithAnEmptyArray() {
    #expect(Promise<Int>.all([]).result?.value == [])
  }

  @Test func allOfResolvedPromisesIsResolvedAtOnce() {
    #expect(Promise.all([Promise(value: 1)]).result?.value == [1])
    let same = Promise(value: 7)
    #expect(Promise.all([same, same, Promise(value: 8)]).result?.value == [7, 7, 8])
  }

  @Test func theFirstErrorWinsWithoutWaitingForTheRest() {
    let promises = (0..<3).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    promises[0].fulfill(0)
    promises[2].reject(TestError(2))
    #expect(all.result?.testError == TestError(2))
    promises[1].reject(TestError(1))
    #expect(all.result?.testError == TestError(2))
  }

  @Test func allUnderConcurrentResolution() async throws {
    let promises = (0..<stressVolume(full: 10_000, quick: 1_000)).map { _ in Promise<Int>() }
    let all = Promise.all(promises)
    DispatchQueue.concurrentPerform(iterations: promises.count) { promises[$0].fulfill($0) }
    #expect(try await all.value == Array(0..<promises.count))
  }

  @Test func raceTakesTheFirstToSettle() {
    let slow = Promise<String>()
    let fast = Promise<String>()
    let first = Promise.race([slow, fast])
    #expect(!first.isResolved)
    fast.fulfill("fast")
    slow.fulfill("slow")
    #expect(first.result?.value == "fast")
  }

  @Test func raceTakesAFirstErrorToo() {
    let slow = Promise<String>()
    let failing = Promise<String>()
    let first = Promise.race([slow, failing])
    failing.reject(TestError(1))
    slow.fulfill("slow")
    #expect(first.result?.testError == TestError(1))
    #expect(Promise.race([Promise<Int>(), Promise(value: 2)]).result?.value == 2)
  }

  @Test func raceOfNothingNeverSettlesAndAnAwaitOfItEndsOnlyByCancellation() async throws {
    let never = Promise<Int>.race([])
    #expect(!never.isResolved)
    let awaiting = Task { try await never.value }
    awaiting.cancel()
    #expect(isCancellation(await result(of: awaiting)))
    #expect(!never.isResolved)
  }

  @Test(arguments: [false, true])
  func raceIsWonByTheInputThatResolvedFirstWhenAnotherIsMadeFromIt(mappedFirst: Bool) {
    let source = Promise<Int>()
    let tenfold = source.map { $0 * 10 }
    let winner = Promise.race(mappedFirst ? [tenfold, source] : [source, tenfold])
    source.fulfill(1)
    #expect(winner.result?.value == 1)
  }

  @Test(arguments: [false, true])
  func raceIsWonByTheInputThatResolvedFirstWhenAnotherResolvesInItsCallbacks(reversed: Bool) {
    // `second` resolves inside `first`'s callbacks, before the race hears of `first`.
    let first = Promise<Int>()
    let second = Promise<Int>()
    first.whenResolved { _ in second.fulfill(2) }
    let winner = Promise.race(reversed ? [second, first] : [first, second])
    first.fulfill(1)
    #expect(winner.result?.value == 1)
  }

  @Test(arguments: [false, true])
  func allRejectsWithTheFirstRejectionWhenAnotherIsMadeFromIt(recoveredFirst: Bool) {
    let source = Promise<Int>()
    let rethrown = source.recover { _ in throw TestError(2) }
    let all = Promise.all(recoveredFirst ? [rethrown, source] : [source, rethrown])
    source.reject(TestError(1))
    #expect(all.result?.testError == TestError(1))
  }

  @Test(arguments: [false, true])
  func allRejectsWithTheFirstRejectionWhenAnotherHappensInItsCallbacks(reversed: Bool) {
    let first = Promise<Int>()
    let second = Promise<Int>()
    first.whenResolved { _ in second.reject(TestError(2)) }
    let all = Promise.all(reversed ? [second, first] : [first, second])
    first.reject(TestError(1))
    #expect(all.result?.testError == TestError(1))
  }

  @Test func inputsResolvedBeforeTheCombinatorCountInTheOrderTheyResolved() {
    let early = Promise<Int>()
    early.fulfill(1)
    let late = early.map { $0 * 10 }  // made resolved, after `early`
    #expect(Promise.race([late, early]).result?.value == 1)
    let failedEarly = Promise<Int>(error: TestError(1))
    let failedLate = Promise<Int>(error: TestError(2))
    #expect(Promise.race([failedLate, failedEarly]).result?.testError == TestError(1))
    #expect(Promise.all([failedLate, failedEarly]).result?.testError == TestError(1))
  }

  @Test func combinatorsOfResolvedInputsAreResolvedWhenMadeEvenInsideACallback() {
    // Inside a callback, promises made from a promise resolving there resolve later; those
    // made from inputs resolved already are decided, and resolved, when made.
    let trigger = Promise<Int>()
    let seen = Recorder<String>()
    let fulfilled = Promise(value: 1)
    let rejected = Promise<Int>(error: TestError(2))
    trigger.whenResolved { _ in
      seen.record("race \(Promise.race([Promise(), fulfilled]).result?.value ?? -1)")
      seen.record("all \(Promise.all([fulfilled, fulfilled]).result?.value ?? [])")
      let failed = Promise.all([Promise(), rejected, fulfilled]).result?.testError
      seen.record("all failed \(failed?.code ?? -1)")
    }
    trigger.fulfill(0)
    #expect(seen.all == ["race 1", "all [1, 1]", "all failed 2"])
  }

  @Test func raceIsWonByTheFirstResolutionWhenTheLaterOnesCallbackArrivesFirst() async {
    let early = Promise<Int>()
    let late = Promise<Int>()
    let resolved = Gate()
    let release = Gate()
    // Registered before the race: holds back `early`'s later callbacks, the race's among them.
    early.whenResolved { _ in
      resolved.open()
      release.wait()
    }
    let winner = Promise.race([early, late])
    let earlyThread = startThread { early.fulfill(1) }
    await resolved.opened()
    _ = await onNewThread { late.fulfill(2) }  // its callback reaches the race first
    #expect(winner.result?.value == 1)
    release.open()
    await earlyThread.opened()
    #expect(winner.result?.value == 1)
  }

  @Test func allRejectsWithTheFirstRejectionWhenTheLaterOnesCallbackArrivesFirst() async {
    let early = Promise<Int>()
    let late = Promise<Int>()
    let fulfilled = Promise<Int>()
    let resolved = Gate()
    let release = Gate()
    early.whenResolved { _ in
      resolved.open()
      release.wait()
    }
    let all = Promise.all([fulfilled, late, early])
    fulfilled.fulfill(0)
    let earlyThread = startThread { early.reject(TestError(1)) }
    await resolved.opened()
    _ = await onNewThread { late.reject(TestError(2)) }
    #expect(all.result?.testError == TestError(1))
    release.open()
    await earlyThread.opened()
    #expect(all.result?.testError == TestError(1))
  }

  @Test func underRacingThreadsTheCombinatorsPickTheEarliestResolution() async {
    // Each round, four threads resolve four inputs at once; whichever callback arrives first,
    // the winner is the input with the smallest resolution stamp.
    for _ in 0..<stressVolume(full: 2_000, quick: 100) {
      let inputs = (0..<4).map { _ in Promise<Int>() }
      let race = Promise.race(inputs)
      let all = Promise.all(inputs)
      await onThreads(4) { index in
        if index.isMultiple(of: 2) {
          inputs[index].fulfill(index)
        } else {
          inputs[index].reject(TestError(index))
        }
      }
      let stamps = inputs.map { input in input.state.withLock { $0.stamp } }
      let first = stamps.indices.min { stamps[$0] < stamps[$1] }!
      let firstRejected = [1, 3].min { stamps[$0] < stamps[$1] }!
      #expect(race.result?.value ?? race.result?.testError?.code == first)
      #expect(all.result?.testError?.code == firstRejected)
    }
  }

  @Test func combinatorsKeepNoInputAlive() {
    weak var input: Promise<Int>?
    let race: Promise<Int>
    let all: Promise<[Int]>
    do {
      let pending = Promise<Int>()
      input = pending
      race = Promise.race([pending, Promise()])
      all = Promise.all([pending, Promise()])
    }
    #expect(input == nil)
    #expect(!race.isResolved)
    #expect(!all.isResolved)
  }

  @Test func aRaceOrAllThatDecidedIgnoresLaterInputs() {
    let inputs = (0..<3).map { _ in Promise<Int>() }
    let race = Promise.race(inputs)
    let all = Promise.all(inputs)
    inputs[1].reject(TestError(1))
    inputs[0].fulfill(0)
    inputs[2].reject(TestError(2))
    #expect(race.result?.testError == TestError(1))
    #expect(all.result?.testError == TestError(1))
  }
}
