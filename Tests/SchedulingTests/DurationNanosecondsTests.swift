import Testing

@testable import TinyScheduling

@Suite struct DurationNanosecondsTests {
  @Test(
    arguments: [
      (Duration.nanoseconds(1), 1),
      (Duration(secondsComponent: 0, attosecondsComponent: 1), 1),  // at least one
      (Duration(secondsComponent: 0, attosecondsComponent: 1_999_999_999), 1),  // rounded down
      (Duration.milliseconds(10), 10_000_000),
      (Duration(secondsComponent: 3, attosecondsComponent: 7_000_000_000), 3_000_000_007),
      (Duration.seconds(9_223_372_036), 9_223_372_036_000_000_000),
      (Duration.seconds(Int64.max), Int.max),  // beyond 292 years: clamped
    ] as [(Duration, Int)])
  func convertsPositiveDurationsToWholeNanoseconds(duration: Duration, expected: Int) {
    #expect(duration.positiveNanoseconds == expected)
  }
}
