// Every API that takes a clock, given a clock as app code stores one: `let clock: any
// Clock<Duration>`, passed by its bare name in a file that imports Foundation. There the bare
// name also finds Glibc's C function `clock()`, which once kept the existential from opening:
// "type 'any Clock<Duration>' cannot conform to 'Clock'". This file compiling is half the test.

import Foundation
import Testing
import TinyEnvironment
import TinyScheduling
import TinyTestSupport
import TinyWaiting

/// An app's service, as a newcomer writes one: it keeps the clock it was given.
private struct Service: Sendable {
  let clock: any Clock<Duration>

  func fetch() async throws -> Int {
    try await withTimeout(.seconds(5), clock: clock) { 42 }
  }

  func slowFetch() async throws -> Int {
    try await withTimeout(.seconds(5), clock: clock) {
      try await clock.sleep(for: .seconds(10))  // timing: virtual time, which the test moves
      return 42
    }
  }

  func answer(of promise: Promise<Int>) async throws -> Int {
    try await promise.value(timeout: .seconds(5), clock: clock)
  }

  func makeLimiter() -> RateLimiter { RateLimiter(interval: .seconds(1), clock: clock) }

  func makeDebouncer() -> Debouncer { Debouncer(interval: .seconds(1), clock: clock) }

  func makeLauncher() -> ClockPeriodicTaskLauncher { ClockPeriodicTaskLauncher(clock: clock) }

  func nowInItsWorld() -> Duration? {
    withWorld({ $0.clock = clock }) { (Current.clock.now as? ManualClock.Instant)?.offset }
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct StoredClockTests {
  @Test func withTimeoutTakesAStoredClock() async throws {
    let clock = ManualClock()
    #expect(try await Service(clock: clock).fetch() == 42)
    #expect(clock.sleeperCount == 0)  // the timer's sleep was on that clock, and was cancelled
    let slow = Task { try await Service(clock: clock).slowFetch() }
    #expect(await clock.waitForSleepers(2))  // the timer's and the operation's
    await clock.advance(by: .seconds(5))
    await #expect(throws: TimeoutError(timeout: .seconds(5))) {
      try await TinyTestSupport.value(of: slow)
    }
  }

  @Test func aPromisesValueWithATimeoutTakesAStoredClock() async {
    let clock = ManualClock()
    let service = Service(clock: clock)
    await #expect(throws: Never.self) { try await service.answer(of: Promise(value: 1)) }
    let pending = Promise<Int>()
    let answer = Task { try await service.answer(of: pending) }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(5))
    await #expect(throws: TimeoutError(timeout: .seconds(5))) {
      try await TinyTestSupport.value(of: answer)
    }
  }

  @Test func aRateLimiterTakesAStoredClock() async {
    let clock = ManualClock()
    let limiter = Service(clock: clock).makeLimiter()
    let log = Recorder<Duration>()
    limiter.execute { log.record(clock.now.offset) }
    limiter.execute { log.record(clock.now.offset) }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(log.all == [.zero, .seconds(1)])
    limiter.cancel()
  }

  @Test func aDebouncerTakesAStoredClock() async {
    let clock = ManualClock()
    let debouncer = Service(clock: clock).makeDebouncer()
    let log = Recorder<Duration>()
    debouncer.execute { log.record(clock.now.offset) }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    #expect(log.all == [.seconds(1)])
  }

  @Test func aClockLauncherTakesAStoredClock() async {
    let clock = ManualClock()
    let launcher = Service(clock: clock).makeLauncher()
    let ticks = Recorder<Duration>()
    launcher.every(.seconds(1)) { ticks.record(clock.now.offset) }
    launcher.start()
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))
    launcher.every(.seconds(1)) { @Sendable () async in ticks.record(clock.now.offset) }
    #expect(await clock.waitForSleepers())
    await clock.advance(by: .seconds(1))  // the same grid, the asynchronous task
    #expect(ticks.all == [.seconds(1), .seconds(2)])
    launcher.stop()
  }

  @Test func aWorldTakesAStoredClock() async {
    let clock = ManualClock()
    await clock.advance(by: .seconds(3))
    #expect(Service(clock: clock).nowInItsWorld() == .seconds(3))
  }
}
