import Foundation
import Testing
import TinyScheduling
import TinyTestSupport

/// Chains of schedulers as long as a user's data, each one's action or task holding the one
/// before it: released, they are freed one after another on a thread with a 512 KB stack.
@Suite(.serialized, .timeLimit(suiteTimeLimit), .watchdog) struct LongChainTests {
  @Test(arguments: SchedulerChain.allCases)
  func aChainHeldThroughActionsOrTasksIsFreedOnASmallStack(kind: SchedulerChain) {
    // Each release used to free the next scheduler inside the previous one's: a thousand
    // limiters, or a few thousand launchers, overflowed a 512 KB stack.
    let length = kind.length
    let freed = Recorder<Bool>()
    onSmallStack {
      weak var first: AnyObject?
      do {
        var last = kind.make(holding: nil)
        first = last
        for _ in 1..<length { last = kind.make(holding: last) }
      }
      freed.record(first == nil)
    }.wait()
    #expect(freed.all == [true])
  }

  @Test(arguments: [SchedulerChain.rateLimiter, .debouncer])
  func whatADroppedWaitingActionsReleaseSetsOffComesAfterIt(kind: SchedulerChain) {
    // A cancel drops an action waiting for the running one; the dropped action holds another
    // scheduler, which its release frees, and that one's kept action goes with it: one after
    // the other, not one inside the other (so a chain of them needs no deeper stack).
    let log = Recorder<String>()
    let launcher = FakePeriodicTaskLauncher()
    let handoff = Handoff()
    do {
      let inner = kind.make(holding: OnDeinit { log.record("inner's kept action released") })
      let outerAction = LetsGoInDeinit(holding: inner, log: log)
      handoff.action = { withExtendedLifetime(outerAction) {} }
    }
    switch kind {
    case .rateLimiter:
      let limiter = RateLimiter(interval: .seconds(60), launcher: launcher)
      limiter.execute {  // runs at once
        limiter.cancel()
        limiter.execute(handoff.take())  // quiescent, so it waits for this one
        limiter.cancel()  // drops it
      }
    default:
      let debouncer = Debouncer(interval: .seconds(60), launcher: launcher)
      debouncer.execute {
        debouncer.execute(handoff.take())
        debouncer.flush()  // it waits for this one
        debouncer.cancel()  // drops it
      }
      launcher.fire()
    }
    #expect(log.all == ["outer begins", "outer ends", "inner's kept action released"])
  }
}

/// Lets go of what it holds in the middle of its `deinit`, between two log entries.
private final class LetsGoInDeinit: @unchecked Sendable {
  // @unchecked: `held` is set before the object is shared and cleared only in its deinit.
  private var held: AnyObject?
  private let log: Recorder<String>

  init(holding held: AnyObject, log: Recorder<String>) {
    self.held = held
    self.log = log
  }

  deinit {
    log.record("outer begins")
    held = nil
    log.record("outer ends")
  }
}

/// Hands an action over once, keeping no reference to it.
private final class Handoff: @unchecked Sendable {
  // @unchecked: set and taken on the test's one thread.
  var action: (@Sendable () -> Void)?

  func take() -> @Sendable () -> Void {
    defer { action = nil }
    return action ?? {}
  }
}

/// A scheduler that keeps a closure of the user's: the kept action of a limiter or a
/// debouncer, or a launcher's task.
enum SchedulerChain: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case rateLimiter, debouncer, fakeLauncher, defaultLauncher

  var testDescription: String { rawValue }

  /// How long a chain to test: 100,000 with the full stress volume, 5,000 in the quick run.
  var length: Int {
    stressVolume(full: 100_000, quick: 5_000)
  }

  /// A new scheduler whose kept closure holds `previous`.
  func make(holding previous: AnyObject?) -> AnyObject {
    let hold: @Sendable () -> Void = { [previous = SendableBox(previous)] in _ = previous }
    switch self {
    case .rateLimiter:
      let limiter = RateLimiter(interval: .seconds(60), launcher: FakePeriodicTaskLauncher())
      limiter.execute {}  // runs at once; the next one is kept
      limiter.execute(hold)
      return limiter
    case .debouncer:
      let debouncer = Debouncer(interval: .seconds(60), launcher: FakePeriodicTaskLauncher())
      debouncer.execute(hold)
      return debouncer
    case .fakeLauncher:
      let launcher = FakePeriodicTaskLauncher()
      launcher.every(.seconds(60), launch: hold)
      return launcher
    case .defaultLauncher:
      let launcher = DefaultPeriodicTaskLauncher()
      launcher.every(.seconds(60), launch: hold)
      return launcher
    }
  }
}

/// Holds a reference across a `@Sendable` closure's capture.
private struct SendableBox: @unchecked Sendable {
  // @unchecked: the reference is only held, never used.
  let object: AnyObject?
  init(_ object: AnyObject?) { self.object = object }
}
