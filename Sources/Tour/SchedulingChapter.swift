import Foundation
import TinyEnvironment
import TinyScheduling
import TinyWaiting

/// TinyScheduling: 20 rapid taps through a real rate limiter and a real debouncer, a launcher
/// that keeps to its grid, a debounced search tested on the world's clock, and the fake
/// launcher.
let schedulingChapter = Chapter(
  title: "TinyScheduling — rate limiting, debouncing, and a launcher with no drift",
  problem: """
    A button tapped 20 times in half a second should not fire 20 requests; a search field
    should search once the typing pauses; a periodic sampler should not drift. And the tests for
    all of that should not sleep.
    """
) {
  let clock = ContinuousClock()
  let taps = 20
  let gap = Duration.milliseconds(25)

  /// Taps `taps` times, `gap` apart, through `execute`, and prints which taps ran and when.
  func tap(through execute: (@escaping @Sendable () -> Void) -> Void) async {
    let lastRuns = Waiter()
    let start = clock.now
    let runs = RunLog()
    for number in 1...taps {
      execute {
        runs.append("tap \(number)", at: clock.now - start)
        if number == taps { lastRuns.finish() }
      }
      if number < taps { try? await Task.sleep(for: gap) }
    }
    let tapped = clock.now - start
    _ = await lastRuns.wait(timeout: .seconds(2))
    say("  taps at 0 … \(tapped.milliseconds) ms; what ran:")
    for (label, elapsed) in runs.all {
      let padded = label.padding(toLength: 7, withPad: " ", startingAt: 0)
      say("    \(padded) at \(elapsed.milliseconds) ms")
    }
  }

  say("20 taps, 25 ms apart, through RateLimiter(interval: .milliseconds(100)):")
  say("the first runs at once, then the latest tap once per 100 ms tick, and the last one runs.")
  let limiter = RateLimiter(interval: .milliseconds(100))
  await tap(through: { limiter.execute($0) })

  print()
  say("The same taps through Debouncer(interval: .milliseconds(100)):")
  say("only the last tap runs, 100 ms after it, once the taps have stopped.")
  let debouncer = Debouncer(interval: .milliseconds(100))
  await tap(through: { debouncer.execute($0) })

  print()
  say("DefaultPeriodicTaskLauncher ticks on absolute deadlines: 30 ticks at 10 ms.")
  let launcher = DefaultPeriodicTaskLauncher()
  let thirtyTicks = Waiter(count: 30)
  let ticks = RunLog()
  let start = clock.now
  launcher.every(.milliseconds(10)) {
    ticks.append("tick", at: clock.now - start)
    thirtyTicks.finish()
  }
  launcher.start()
  _ = await thirtyTicks.wait(timeout: .seconds(5))
  launcher.stop()
  let times = ticks.all.prefix(30).map(\.elapsed)
  let lateness = times.enumerated().map { $1 - .milliseconds(10 * ($0 + 1)) }
  let meanLateness = lateness.reduce(.zero, +) / max(1, lateness.count)
  show("mean lateness", "\(meanLateness.milliseconds) ms")
  show("30th tick, ideal 300 ms", "\(times.last?.milliseconds ?? "-") ms")

  print()
  say("On the world's clock, a debounced search is tested without waiting: the mock world's")
  say("clock is a ManualClock, and the search still sees the test's world when it runs.")
  let manual = ManualClock()
  let (early, searched) = await withWorld(.mock) { () async -> ([String], [String]) in
    Current.clock = manual  // allow-current-assignment
    let searches = EventLog()
    /// The app's search: the world's request ID, then the query's results.
    @Sendable func fetchResults(for query: String) async -> String {
      "request \(Current.uuid().uuidString.suffix(2)): results for \(query)"
    }
    let debouncer = Debouncer(interval: .milliseconds(300), clock: Current.clock)
    for query in ["s", "sw", "swift"] {
      debouncer.execute { searches.record(await fetchResults(for: query)) }
    }
    await manual.waitForSleepers()
    await manual.advance(by: .milliseconds(299))
    let early = searches.recorded
    await manual.advance(by: .milliseconds(1))
    return (early, searches.recorded)
  }
  show("execute × 3; await clock.advance(by: 299 ms)", "searched \(early)")
  show("await clock.advance(by: .milliseconds(1))", "searched \(searched)")

  print()
  say("In tests, FakePeriodicTaskLauncher replaces time with explicit ticks:")
  let fake = FakePeriodicTaskLauncher()
  let tested = RateLimiter(interval: .seconds(1), launcher: fake)
  let ran = EventLog()
  for letter in ["a", "b", "c"] {
    tested.execute { ran.record(letter) }
  }
  show("execute a, b, c", "ran \(ran.recorded); c is kept for the next tick")
  show("fake.fire()", "\(fake.fire()): the tick ran c; ran \(ran.recorded)")
  let stopped = fake.fire()
  show("fake.fire()", "\(stopped): the tick found nothing kept and stopped the launcher")
  show("fake.isActive, fake.startCount", "\(fake.isActive), \(fake.startCount)")
  show("fake.fire()", "\(fake.fire()): the launcher is inactive, nothing ran")
}

/// A lock-protected list of labelled times that actions on any thread append to.
// Safe: `entries` is only touched under `lock`.
private final class RunLog: @unchecked Sendable {
  private let lock = NSLock()
  private var entries: [(label: String, elapsed: Duration)] = []

  func append(_ label: String, at elapsed: Duration) {
    lock.withLock { entries.append((label, elapsed)) }
  }

  var all: [(label: String, elapsed: Duration)] {
    lock.withLock { entries }
  }
}

extension Duration {
  /// The duration in milliseconds with one decimal, such as "100.3".
  fileprivate var milliseconds: String {
    let (seconds, attoseconds) = components
    let tenths = (Double(seconds) * 1e3 + Double(attoseconds) / 1e15) * 10
    return String(format: "%.1f", tenths.rounded() / 10)
  }
}
