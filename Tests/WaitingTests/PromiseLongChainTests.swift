import Foundation
import Testing
import TinyTestSupport
import TinyWaiting

/// Chains as long as a user's data: they resolve, and are freed when dropped, on a thread with
/// a 512 KB stack. One chain at a time, so that the full volume (a million steps) stays within
/// memory.
@Suite(.serialized, .timeLimit(suiteTimeLimit), .watchdog) struct PromiseLongChainTests {
  @Test(arguments: ChainStep.allCases)
  func aLongChainResolvesOnASmallStack(step: ChainStep) async {
    // Resolving used to nest one call per step: about 1,600 steps overflowed a 1 MB stack.
    let length = step.length
    let outcome = await onSmallStack {
      let source = Promise<Int>()
      let last = step.chain(from: source, length: length)
      let delivered = Recorder<Int?>()
      last.whenResolved { delivered.record(step.count($0)) }
      step.start(source)
      // The whole chain resolved, and ran its callbacks, before the resolution returned.
      return (step.count(last.result), delivered.all)
    }
    #expect(outcome.0 == length)
    #expect(outcome.1 == [length])
  }

  @Test(arguments: ChainStep.allCases)
  func aLongPendingChainIsFreedOnASmallStackWhenItsSourceIsDropped(step: ChainStep) async {
    // Freeing used to nest one `deinit` per step, as deep as the chain.
    let length = step.length
    let outcome = await onSmallStack {
      weak var second: Promise<Int>?
      let last: Promise<Int>
      do {
        let source = Promise<Int>()
        let first = step.chain(from: source, length: 1)
        second = first
        last = step.chain(from: first, length: length - 1)
      }
      return (second == nil, last.isResolved)
    }
    #expect(outcome.0)  // freed with the source
    #expect(!outcome.1)  // and never resolves
  }

  @Test(arguments: ["value", "error"])
  func aChainOfPromisesHeldThroughTheirResolutionsIsFreedOnASmallStack(held: String) async {
    // Each promise's value (or error) holds the one before it: releasing the last promise used
    // to free the value inside the promise's `deinit`, and that value's promise inside it, and
    // so on; a thousand links overflowed a 512 KB stack.
    let length = stressVolume(full: 1_000_000, quick: 20_000)
    let freed = await onSmallStack {
      weak var first: Promise<Link>?
      do {
        var last = Promise(value: Link(nil))
        first = last
        for _ in 0..<length {
          last = held == "value" ? Promise(value: Link(last)) : Promise(error: LinkError(last))
        }
      }
      return first == nil
    }
    #expect(freed)
  }
}

/// A value that holds the promise before it in a chain.
final class Link: Sendable {
  let previous: Promise<Link>?
  init(_ previous: Promise<Link>?) { self.previous = previous }
}

/// An error that holds the promise before it in a chain.
struct LinkError: Error {
  let previous: Promise<Link>
  init(_ previous: Promise<Link>) { self.previous = previous }
}

/// One kind of step in a long chain of promises.
enum ChainStep: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case map, then, recover, all, race

  var testDescription: String { rawValue }

  /// How long a chain to test: a million `map` and `then` steps (100,000 of the others, which
  /// allocate more per step) with the full stress volume. A debug build takes seconds for
  /// that, so the quick run uses 5,000 (2,000): still more than the about 1,600 steps that
  /// overflowed a 1 MB stack before chains resolved and were freed as loops.
  var length: Int {
    switch self {
    case .map, .then: stressVolume(full: 1_000_000, quick: 5_000)
    case .recover, .all, .race: stressVolume(full: 100_000, quick: 2_000)
    }
  }

  /// Adds `length` steps after `source`, each counting one more: a value one larger, or (for
  /// `recover`, whose chain stays rejected) an error whose code is one larger.
  func chain(from source: Promise<Int>, length: Int) -> Promise<Int> {
    var last = source
    for _ in 0..<length {
      switch self {
      case .map: last = last.map { $0 + 1 }
      case .then: last = last.then { Promise(value: $0 + 1) }
      case .recover: last = last.recover { throw TestError(($0 as? TestError)!.code + 1) }
      case .all: last = Promise.all([last]).map { $0[0] + 1 }
      case .race: last = Promise.race([last]).map { $0 + 1 }
      }
    }
    return last
  }

  /// Resolves the source of a chain, at count 0.
  func start(_ source: Promise<Int>) {
    if self == .recover {
      source.reject(TestError(0))
    } else {
      source.fulfill(0)
    }
  }

  /// The count a resolution of the chain carries.
  func count(_ result: Result<Int, any Error>?) -> Int? {
    self == .recover ? result?.testError?.code : result?.value
  }
}
