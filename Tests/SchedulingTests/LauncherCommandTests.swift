import Testing
import TinyTestSupport

@testable import TinyScheduling

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct LauncherCommandTests {
  @Test(
    arguments: [
      (nil, false, 0, 0),
      (.start, true, 1, 0),
      (.stop, false, 0, 1),
      (.restart, true, 1, 1),
    ] as [(LauncherCommand?, Bool, Int, Int)])
  func performsEachCommandOnTheLauncher(
    command: LauncherCommand?, active: Bool, starts: Int, stops: Int
  ) {
    let launcher = FakePeriodicTaskLauncher()
    launcher.perform(command)
    #expect(launcher.isActive == active)
    #expect(launcher.startCount == starts)
    #expect(launcher.stopCount == stops)
  }
}
