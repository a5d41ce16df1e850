import Testing
import TinyTestSupport

@testable import TinyObservation

/// Checks, without a lock of its own, that a watcher sees the changes of a counter that only
/// ever goes up by one: every change exactly once, in order.
///
/// Safe without a lock because the atom calls each watcher serially and orders the calls with
/// its lock and its delivery turn (a turn that ends with nothing waiting publishes the calls it
/// made to the next deliverer), so the thread sanitizer would report a race here if it did not. Read it only once
/// the updates are done.
final class SequenceCheck: @unchecked Sendable {  // safe: see the type's comment
  private(set) var count = 0
  private(set) var last = 0
  private(set) var outOfOrder = 0

  func see(_ change: AtomChange<Int>) {
    if change.old != last || change.new != last + 1 { outOfOrder += 1 }
    last = change.new
    count += 1
  }
}

/// Increments `count` `times` times on each of 8 threads at once.
func incrementOnEightThreads(_ count: Atom<Int>, times: Int) async {
  await onThreads(8) { _ in
    for _ in 0..<times { count.update { $0 += 1 } }
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomStressTests {
  /// Updates per thread, 8 threads at once: 40,000 in the full-volume run
  /// (`TINYBLOCKS_FULL_STRESS=1`; 100,000 took 50 s of the suite's one-minute limit on the
  /// loaded 2-core machine), 1,000 otherwise; a tenth under the thread sanitizer.
  static let perThread = stressVolume(full: 40_000, quick: 1_000)

  @Test func eightThreadsUpdateAndEveryWatcherSeesEveryChangeInOrder() async {
    let count = Atom(0)
    let checks = [SequenceCheck(), SequenceCheck()]
    let tokens = checks.map { check in count.watch { check.see($0) } }
    await incrementOnEightThreads(count, times: Self.perThread)
    let total = 8 * Self.perThread
    #expect(count.value == total)
    for check in checks {
      #expect(check.count == total)
      #expect(check.last == total)
      #expect(check.outOfOrder == 0)
    }
    tokens.forEach { $0.cancel() }
  }

  @Test func mainQueueWatchersSeeEveryChangeInOrderToo() async {
    let count = Atom(0)
    let check = SequenceCheck()
    let token = count.watchOnMain { check.see($0) }
    let perThread = Self.perThread / 10
    await incrementOnEightThreads(count, times: perThread)
    await mainQueueTurn()
    await MainActor.run {
      #expect(check.count == 8 * perThread)
      #expect(check.outOfOrder == 0)
    }
    token.cancel()
  }

  @Test func watchesComeAndGoWhileEightThreadsUpdate() async {
    let count = Atom(0)
    let steady = SequenceCheck()
    let token = count.watch { steady.see($0) }
    let perThread = Self.perThread / 10
    await onThreads(8) { index in
      for round in 0..<perThread {
        if index < 2 {
          // Two threads churn watches: each sees an increasing run of values.
          // A delivery another thread started may still run after `cancel()`, so the values
          // are recorded behind a lock.
          let local = Recorder<Int>()
          let churn = count.watch(includingInitial: round.isMultiple(of: 2)) {
            local.record($0.new)
          }
          count.update { $0 += 1 }
          churn.cancel()
          let values = local.all
          #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        } else {
          count.update { $0 += 1 }
        }
      }
    }
    #expect(count.value == 8 * perThread)
    #expect(steady.count == 8 * perThread)
    #expect(steady.outOfOrder == 0)
    #expect(count.watcherCount == 1)
    token.cancel()
  }
}
