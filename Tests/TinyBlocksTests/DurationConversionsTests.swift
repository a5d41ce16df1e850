// The `Duration` conversions every block shares.

import Testing
import TinyInternals
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DurationConversionsTests {
  @Test(
    arguments: [
      (Duration.nanoseconds(1), 1),
      (Duration(secondsComponent: 0, attosecondsComponent: 1), 1),  // at least one
      (Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999), 1),  // rounded down
      (Duration.milliseconds(10), 10_000_000),
      (Duration(secondsComponent: 3, attosecondsComponent: 7_000_000_000), 3_000_000_007),
      (Duration.seconds(9_223_372_036), 9_223_372_036_000_000_000),
      (Duration.seconds(Int64.max), Int.max),  // beyond 292 years: clamped
      (Duration.seconds(1e20), Int.max),  // whole seconds beyond Int64
      (Duration.seconds(Int64.max) * 18, Int.max),
    ] as [(Duration, Int)])
  func convertsPositiveDurationsToWholeNanoseconds(duration: Duration, expected: Int) {
    #expect(duration.positiveNanoseconds == expected)
  }

  @Test(
    arguments: [
      (Duration.zero, 0),
      (Duration.nanoseconds(-1), -1),
      (Duration.milliseconds(-10), -10_000_000),
      (Duration.seconds(Int64.min), Int.min),  // clamped
      (Duration.seconds(Int64.max), Int.max),
      (Duration.nanoseconds(Int.max), Int.max),
      (Duration.nanoseconds(Int.min), Int.min),
      (Duration.seconds(1e20), Int.max),  // whole seconds beyond Int64
      (Duration.seconds(-1e20), Int.min),
    ] as [(Duration, Int)])
  func clampsEveryDurationToWholeNanoseconds(duration: Duration, expected: Int) {
    #expect(duration.clampedNanoseconds == expected)
  }

  @Test(
    arguments: [
      (Duration.zero, 0.0),
      (Duration.milliseconds(1_500), 1.5),
      (Duration.milliseconds(-250), -0.25),
      (Duration.seconds(Int64.max) * 16, 16 * 9_223_372_036_854_775_807.0),  // beyond Int64
      (Duration.seconds(-1e20), -1e20),
    ] as [(Duration, Double)])
  func convertsToSeconds(duration: Duration, expected: Double) {
    #expect(duration.seconds == expected)
  }
}
