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

  @Test(
    arguments: [
      (Duration.seconds(60) * 159, Duration.seconds(60), 159),  // 158.99… in floating point
      (Duration.seconds(1.1) * 5, Duration.seconds(1.1), 5),  // 4.99… in floating point
      (Duration.milliseconds(1_100) * 1_075, Duration.milliseconds(1_100), 1_075),
      (Duration.milliseconds(16.7) * 17, Duration.milliseconds(16.7), 17),
      (Duration.microseconds(16_700) * 8_839, Duration.microseconds(16_700), 8_839),
      (Duration.seconds(1), Duration.seconds(1) / 3, 3),
      (Duration.seconds(1) / 3 * 1_000_003, Duration.seconds(1) / 3, 1_000_003),
      (Duration.seconds(60) * 159 - .nanoseconds(1), Duration.seconds(60), 158),  // just short
      (Duration.seconds(60) * 159 + .nanoseconds(1), Duration.seconds(60), 159),
      (Duration.seconds(1), Duration.seconds(1), 1),
      (Duration.milliseconds(999), Duration.seconds(1), 0),  // shorter than one
      (Duration.zero, Duration.seconds(1), 0),
      (Duration.seconds(-5), Duration.seconds(1), 0),  // negative: none
      (Duration.seconds(Int64.max), Duration.nanoseconds(1), Int.max),  // too many: clamped
      (
        Duration.seconds(Int64.max) * 18, Duration(secondsComponent: 0, attosecondsComponent: 1),
        Int.max
      ),
      (Duration.seconds(Int64.max) * 18, Duration.seconds(Int64.max) * 9, 2),
      (Duration.nanoseconds(Int.max), Duration.nanoseconds(1), Int.max),
      (Duration.nanoseconds(Int.max - 1), Duration.nanoseconds(1), Int.max - 1),
      (Duration.nanoseconds(Int.max) + .nanoseconds(1), Duration.nanoseconds(1), Int.max),  // 2^63
      (Duration.nanoseconds(Int.max) * 2, Duration.nanoseconds(1), Int.max),  // 2^64 - 2
      (Duration.nanoseconds(Int.max) * 4, Duration.nanoseconds(1), Int.max),  // 2^65 - 4
    ] as [(Duration, Duration, Int)])
  func countsWholeMultiplesExactly(duration: Duration, interval: Duration, expected: Int) {
    #expect(duration.wholeMultiples(of: interval) == expected)
  }
}
