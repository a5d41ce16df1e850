import Foundation
import Testing
import TinyTestSupport

@Suite(.timeLimit(.minutes(1))) struct TmpDebugTests {
  @Test(arguments: 0..<5) func shape(_ which: Int) async throws {
    let stop = Gate()
    let spinners = (0..<4).map { _ in startThread { while !stop.isOpen {} } }
    defer { stop.open(); for s in spinners { s.wait() } }
    for i in 0..<1000 {
      let ok: Bool
      switch which {
      case 0: ok = try await retryLoopBacksOff()
      case 1: ok = await pollingLoopPollsOncePerInterval()
      case 2: ok = await timeoutFires()
      case 3: ok = try await timeoutDoesNotFire()
      default: ok = await debouncedSearch()
      }
      if !ok { print("shape \(which) run \(i) wrong") }
      if i % 50 == 0 { print("shape \(which) run \(i)") }
    }
  }
}
