// The lock every block shares: the platform's own, which stops the program when the thread that
// holds it takes it again.

import Dispatch
import Foundation
import Testing
import TinyInternals
import TinyObservation
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct LockTests {
  @Test func countsExactlyUnderContention() {
    // While one thread holds the lock, another waits for it: contention, not re-locking.
    let counter = Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    }
    #expect(counter.withLock { $0 } == 80_000)
  }

  @Test func aHolderWhoseWaiterSleepsHandsItsWritesOver() {
    // A thread that waits long for the lock sleeps, and on Linux the kernel hands it the lock
    // (`FUTEX_LOCK_PI`). Without the thread sanitizer this checks the count; under it (CI runs
    // the suite so), a hand-over that the sanitizer did not see would be reported as a race on
    // the count.
    let counter = Locked(0)
    let holding = Gate()
    let waiter = startThread {
      holding.wait()
      counter.withLock { $0 += 1 }
    }
    counter.withLock { count in
      holding.open()
      count += 1
      // The outcome is the same however long this sleep is.
      // timing: long enough for the waiter to stop spinning and sleep in the kernel.
      Thread.sleep(forTimeInterval: 0.05)
      count += 1
    }
    waiter.wait()
    #expect(counter.withLock { $0 } == 3)
  }

  @Test func returnsWhatTheBodyReturnsAndRethrowsItsTypedError() {
    struct Oops: Error, Equatable { let code: Int }
    let locked = Locked(1)
    #expect(locked.withLock { $0 + 41 } == 42)
    #expect(throws: Oops(code: 1)) {
      try locked.withLock { (value: inout Int) throws(Oops) in throw Oops(code: value) }
    }
    // The lock was released by the throw: it can be taken again.
    #expect(locked.withLock { $0 } == 1)
  }

  @Test func aLockHeldAcrossAnAwaitOnAnotherThreadIsNotMistakenForReentry() async {
    // Two tasks take one lock in turn, each suspending between its turns, so each turn may run
    // on a thread that held the lock a moment before: only the thread holding it now counts.
    final class Shared: Sendable { let count = Locked(0) }
    let shared = Shared()
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          for _ in 0..<1_000 {
            shared.count.withLock { $0 += 1 }
            await Task.yield()
            shared.count.withLock { $0 += 1 }
          }
        }
      }
    }
    #expect(shared.count.withLock { $0 } == 4_000)
  }

  #if os(Linux)
    // The lock is the platform's own, and keeps no record of its holder: on Linux, the
    // standard library's `Mutex` stops the program when its holder takes it again (the kernel's
    // priority-inheriting futex refuses the second lock). These tests also guard against a
    // toolchain that stops doing so: a hang here would be caught by the test's time limit.
    @Test func aLockTakenAgainByTheThreadHoldingItStopsTheProgram() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let locked = Locked(0)
        locked.withLock { _ in locked.withLock { $0 += 1 } }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("Recursive call to lock Mutex"))
    }

    @Test func anAtomUsedInsideItsOwnUpdateStopsTheProgram() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        let atom = Atom(0)
        atom.update { _ in _ = atom.value }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("Recursive call to lock Mutex"))
    }
  #endif
}
