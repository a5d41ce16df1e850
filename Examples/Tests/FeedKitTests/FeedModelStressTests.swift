import Foundation
import Testing

/// The guides' pattern for an action that starts at once, run 1,000 times side by side: with
/// `TINYBLOCKS_FULL_STRESS=1` only (`./stress-refresh.sh` runs it on two loaded cores).
@Suite(.timeLimit(.minutes(5))) struct FeedModelStressTests {
  static let runs = ProcessInfo.processInfo.environment["TINYBLOCKS_FULL_STRESS"] == "1"
  /// `FEEDKIT_STRESS_WITHOUT_WAIT=1` leaves out the wait until idle, to show what it prevents.
  static let waits = ProcessInfo.processInfo.environment["FEEDKIT_STRESS_WITHOUT_WAIT"] != "1"

  @Test(.enabled(if: runs), arguments: 0..<1_000)
  func aRefreshNowThenTheNextTick(run: Int) async {
    #expect(await refreshNowThenTheNextTick(waitingUntilIdle: Self.waits))
  }
}
