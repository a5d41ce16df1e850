// The lock every block uses is one file, copied byte for byte into each block (CI checks the
// copies), so its behaviour is tested once, here, on TinyObservation's copy; only the message
// that names the block's APIs differs, and each block's message is checked.

import Dispatch
import Testing
import TinyTestSupport

@testable import TinyContext
@testable import TinyEnvironment
@testable import TinyObservation
@testable import TinyScheduling
@testable import TinyWaiting

@Suite(.timeLimit(suiteTimeLimit)) struct LockTests {
  @Test func countsExactlyUnderContention() {
    // While one thread holds the lock, another waits for it: contention, not re-locking.
    let counter = TinyObservation.Locked(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    }
    #expect(counter.withLock { $0 } == 80_000)
  }

  @Test func returnsWhatTheBodyReturnsAndRethrowsItsTypedError() {
    struct Oops: Error, Equatable { let code: Int }
    let locked = TinyObservation.Locked(1)
    #expect(locked.withLock { $0 + 41 } == 42)
    #expect(throws: Oops(code: 1)) {
      try locked.withLock { (value: inout Int) throws(Oops) in throw Oops(code: value) }
    }
    // The lock was released by the throw: it can be taken again.
    #expect(locked.withLock { $0 } == 1)
  }

  #if os(Linux)
    // Linux locks record their holder, so taking one again on its thread stops the program
    // with a message naming the block; on Apple platforms `os_unfair_lock` stops the program
    // itself, with its own message.
    @Test(arguments: ["Context", "Environment", "Observation", "Scheduling", "Waiting"])
    func lockingAgainFromTheHoldingThreadStopsWithTheBlocksMessage(block: String) async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) { [block] in
        switch block {
        case "Context":
          let locked = TinyContext.Locked(0)
          locked.withLock { _ in locked.withLock { $0 += 1 } }
        case "Environment":
          let locked = TinyEnvironment.Locked(0)
          locked.withLock { _ in locked.withLock { $0 += 1 } }
        case "Observation":
          let locked = TinyObservation.Locked(0)
          locked.withLock { _ in locked.withLock { $0 += 1 } }
        case "Scheduling":
          let locked = TinyScheduling.Locked(0)
          locked.withLock { _ in locked.withLock { $0 += 1 } }
        default:
          let locked = TinyWaiting.Locked(0)
          locked.withLock { _ in locked.withLock { $0 += 1 } }
        }
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("Tiny\(block): "))
    }
  #endif
}
