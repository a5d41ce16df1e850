// swift-async-algorithms' debounce and `throttle(latest: true)` test cases (1.1.4,
// TestDebounce.swift and TestThrottle.swift), run through TinyScheduling's Debouncer and
// RateLimiter on a ManualClock.
//
// A diagram is one character per step of time, the first character at step 1: a letter is an
// element arriving (here: an `execute` whose action records that letter), `-` is a step with
// nothing, `|` the end of the input, `^` a failure, and `[…]` several things in one step. The
// expected diagrams list the steps at which the letters' actions ran; `|` and `^` in them only
// mark the end.

import Testing
import TinyEnvironment
import TinyScheduling
import TinyTestSupport

/// One test case: an input diagram, the interval in steps, and the expected output diagram.
struct DiagramCase: Sendable, CustomTestStringConvertible {
  let name: String
  let input: String
  let steps: Int
  let output: String
  var testDescription: String { name }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ThrottleDebounceDiagramTests {
  /// The debounce cases, `debounce(for: .steps(3))`. The end of the input flushes the waiting
  /// element at once, as `flush()` does; a failure drops it, as `cancel()` does.
  static let debounceCases = [
    DiagramCase(
      name: "delaying values", input: "abcd----e---f-g----|", steps: 3,
      output: "------d----e-----g-|"),
    DiagramCase(
      name: "delaying values, dangling last", input: "abcd----e---f-g-|", steps: 3,
      output: "------d----e----[g|]"),
    DiagramCase(name: "finish does not debounce", input: "a|", steps: 3, output: "-[a|]"),
    DiagramCase(name: "a failure does not debounce", input: "a^", steps: 3, output: "-^"),
    DiagramCase(name: "no values", input: "----|", steps: 3, output: "----|"),
  ]

  /// The `throttle(latest: true)` cases with a positive interval (the `latest: false` cases
  /// keep the earliest element, which a RateLimiter never does, and a zero interval is a
  /// programmer error for it). The end of the input changes nothing: the limiter's next tick
  /// runs the kept action, as the throttle sends its last element one interval after the
  /// previous one. A failure drops the kept action, as `cancel()` does.
  static let throttleCases = [
    DiagramCase(name: "rate 1", input: "abcdefghijk|", steps: 1, output: "abcdefghijk|"),
    DiagramCase(name: "rate 2", input: "abcdefghijk|", steps: 2, output: "a-c-e-g-i-k|"),
    DiagramCase(name: "rate 3", input: "abcdefghijk|", steps: 3, output: "a--d--g--j--[k|]"),
    DiagramCase(name: "throwing", input: "abcdef^hijk|", steps: 2, output: "a-c-e-^"),
    DiagramCase(
      name: "emission 2, rate 1", input: "-a-b-c-d-e-f-g-h-i-j-k-|", steps: 1,
      output: "-a-b-c-d-e-f-g-h-i-j-k-|"),
    DiagramCase(
      name: "emission 2, rate 2", input: "-a-b-c-d-e-f-g-h-i-j-k-|", steps: 2,
      output: "-a-b-c-d-e-f-g-h-i-j-k-|"),
    DiagramCase(
      name: "emission 3, rate 2", input: "--a--b--c--d--e--f--g|", steps: 2,
      output: "--a--b--c--d--e--f--g|"),
    // The one case where the grid shows: the throttle there sends b's successor c at step 6,
    // measured from a's step 2 ("-a---c---e---g---i---k-|"); the limiter's ticks come every 3
    // steps from a's step, at 5, 8, 11, …, and each runs what was kept by then.
    DiagramCase(
      name: "emission 2, rate 3 (on a grid)", input: "-a-b-c-d-e-f-g-h-i-j-k-|", steps: 3,
      output: "-a--b--d--e--g--h--j--k|"),
    DiagramCase(
      name: "trailing delay with latest", input: "abcdefghijkl|", steps: 3,
      output: "a--d--g--j--[l|]"),
  ]

  @Test(arguments: debounceCases)
  func debounce(_ diagram: DiagramCase) async {
    let clock = ManualClock()
    let debouncer = Debouncer(interval: step * diagram.steps + tieBreak, clock: clock)
    let ran = await play(diagram.input, on: clock) { event, log in
      switch event {
      case .element(let name): debouncer.execute { log.record("\(name)@\(stepNow(clock))") }
      case .end: debouncer.flush()
      case .failure: debouncer.cancel()
      }
    }
    #expect(ran == expectedRuns(diagram.output))
    debouncer.cancel()
  }

  @Test(arguments: throttleCases)
  func throttle(_ diagram: DiagramCase) async {
    let clock = ManualClock()
    let limiter = RateLimiter(interval: step * diagram.steps + tieBreak, clock: clock)
    let ran = await play(diagram.input, on: clock) { event, log in
      switch event {
      case .element(let name): limiter.execute { log.record("\(name)@\(stepNow(clock))") }
      case .end: break
      case .failure: limiter.cancel()
      }
    }
    #expect(ran == expectedRuns(diagram.output))
    limiter.cancel()
  }
}

/// One step of a diagram's time.
private let step = Duration.seconds(1)

/// Added to every interval. A tick then falls a hair after the step it is due in, so an element
/// of that step arrives before it, as in the diagrams, where an element that arrives when the
/// interval is over goes out at once. (Exactly on the step, which of the two comes first would
/// be the test's choice.)
private let tieBreak = Duration.nanoseconds(1)

/// What a diagram's step holds, for the driver.
enum DiagramEvent {
  case element(Character)
  case end
  case failure
}

/// The step the clock is in: step `k` runs from `k` steps to just before `k + 1`.
private func stepNow(_ clock: ManualClock) -> Int {
  Int((clock.now.offset / step).rounded(.down))
}

/// Plays `input` on `clock`: at each step, first moves the clock to it (ticks due by then run),
/// then hands the step's events to `send`, up to the input's end or failure, each element
/// followed by a wait for the launcher's task to sleep. Then moves the
/// clock on until nothing sleeps on it. Returns what the actions recorded, as `letter@step`.
private func play(
  _ input: String, on clock: ManualClock,
  send: (DiagramEvent, Recorder<String>) -> Void
) async -> [String] {
  let log = Recorder<String>()
  steps: for (index, events) in parse(input).enumerated() {
    await clock.advance(to: .init(offset: step * (index + 1)))
    for event in events {
      send(event, log)
      guard case .element = event else { break steps }
      // An element leaves the launcher ticking, its task sleeping on the clock: a task that was
      // just started has to reach its sleep before the clock moves.
      #expect(await clock.waitForSleepers())
    }
  }
  _ = await clock.run(maxSteps: 100)
  return log.all
}

/// The events of each step of a diagram, in order.
private func parse(_ diagram: String) -> [[DiagramEvent]] {
  var steps: [[DiagramEvent]] = []
  var group: [DiagramEvent]?
  for character in diagram {
    let event: DiagramEvent?
    switch character {
    case "[":
      group = []
      continue
    case "]":
      steps.append(group ?? [])
      group = nil
      continue
    case "-": event = nil
    case "|": event = .end
    case "^": event = .failure
    default: event = .element(character)
    }
    if group != nil {
      if let event { group?.append(event) }
    } else {
      steps.append(event.map { [$0] } ?? [])
    }
  }
  return steps
}

/// The letters of an output diagram, as `letter@step`.
private func expectedRuns(_ output: String) -> [String] {
  parse(output).enumerated().flatMap { index, events in
    events.compactMap { event -> String? in
      guard case .element(let name) = event else { return nil }
      return "\(name)@\(index + 1)"
    }
  }
}
