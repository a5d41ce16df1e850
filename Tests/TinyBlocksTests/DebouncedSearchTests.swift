// A debounced search as an app writes it (TinyScheduling's Debouncer on the world's clock,
// an async search through the world), tested on TinyEnvironment's ManualClock with no real
// waiting.

import Foundation
import Testing
import TinyEnvironment
import TinyScheduling
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DebouncedSearchTests {
  @Test func searchesForTheLastQueryOnceTheTypingPauses() async {
    #expect(await value(of: Task { await debouncedSearch() }))
  }

  /// The same, many times in a row, while two threads keep both cores busy: not one run may
  /// go wrong (1,000 runs with `TINYBLOCKS_FULL_STRESS=1`).
  @Test func holdsUnderLoad() async {
    let runs = stressVolume(full: 1_000, quick: 20)
    let failures = await whileCoresAreBusy {
      await value(
        of: Task {
          var failures = 0
          for _ in 0..<runs {
            if await !debouncedSearch() { failures += 1 }
          }
          return failures
        })
    }
    #expect(failures == 0)
  }
}

/// A search field's model: each change of the query searches, 300 ms after the typing pauses,
/// on the world's clock, with the world's services.
final class SearchModel: Sendable {
  private let debouncer = Debouncer(interval: .milliseconds(300), clock: Current.clock)
  private let found = Recorder<String>()

  /// What the searches found, in order.
  var results: [String] { found.all }

  func queryChanged(_ query: String) {
    debouncer.execute { [found] in
      let request = Current.uuid()  // the world of the code that typed
      // timing: virtual time, which only the test moves (the server's 50 ms)
      try? await Current.clock.sleep(for: .milliseconds(50))
      found.record("\(query) \(request.uuidString.suffix(2))")
    }
  }
}

/// Types "a", then "ad" and "ada" 200 ms later, and checks that only "ada" is searched for, 300
/// ms after the last keystroke, in the mock world, and that nothing is left on the clock.
func debouncedSearch() async -> Bool {
  let clock = ManualClock()
  return await withWorld(.mock) { () async -> Bool in
    Current.clock = clock
    let model = SearchModel()
    model.queryChanged("a")
    guard await clock.waitForSleepers() else { return false }
    await clock.advance(by: .milliseconds(200))
    model.queryChanged("ad")
    model.queryChanged("ada")
    guard await clock.waitForSleepers() else { return false }
    await clock.advance(by: .milliseconds(299))
    let early = model.results
    await clock.advance(by: .milliseconds(1))  // the search starts and waits for the server
    let waiting = model.results
    await clock.advance(by: .milliseconds(50))
    return early == [] && waiting == [] && model.results == ["ada 00"] && clock.sleeperCount == 0
  }
}

/// Runs `body` while two threads spin, one per core, competing with it for the cores.
func whileCoresAreBusy<Result: Sendable>(_ body: () async -> Result) async -> Result {
  let stop = Gate()
  let spinners = (0..<2).map { _ in startThread { while !stop.isOpen {} } }
  defer {
    stop.open()
    for spinner in spinners { spinner.wait() }
  }
  return await body()
}
