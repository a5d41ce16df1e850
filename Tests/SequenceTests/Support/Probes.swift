import Testing
import TinyTestSupport

/// A sequence that can be iterated once and counts the elements read from it, so tests can
/// prove single-pass use and early exit.
final class SinglePass<Element>: Sequence {
  private var elements: [Element]
  private var iterated = false
  /// The number of elements handed out so far.
  private(set) var readCount = 0

  init(_ elements: [Element]) {
    self.elements = elements
  }

  func makeIterator() -> AnyIterator<Element> {
    #expect(!iterated, "SinglePass iterated twice")
    iterated = true
    var index = 0
    return AnyIterator { [self] in
      guard index < elements.count else { return nil }
      defer { index += 1 }
      readCount += 1
      return elements[index]
    }
  }
}

/// Counts calls to a key or value function.
final class CallCounter {
  private(set) var count = 0

  func count<Input, Output>(_ body: @escaping (Input) -> Output) -> (Input) -> Output {
    { input in
      self.count += 1
      return body(input)
    }
  }
}

/// An element that is `Equatable` but not `Hashable`, to reach the `Equatable` overloads.
struct EquatableOnly: Equatable, CustomStringConvertible {
  let value: Int
  var description: String { "\(value)" }
}

/// An element with an identity separate from its sort key, to tell tied elements apart.
struct Tagged: Equatable, CustomStringConvertible {
  let id: Int
  let key: Double
  var description: String { "#\(id)(\(key))" }
}

/// Builds tagged elements whose ids are their positions.
func tagged(_ keys: [Double]) -> [Tagged] {
  keys.enumerated().map { Tagged(id: $0.offset, key: $0.element) }
}

/// The error thrown by test closures.
struct Boom: Error, Equatable {
  let at: Int
}

/// A deterministic pseudo-random generator (SplitMix64) for property tests.
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// 1, 2, 3, … without end, as far as a correct search can tell: after a million elements it
/// records a test failure and ends, so that a search that never stops fails instead of hanging.
struct Naturals: Sequence {
  static let limit = 1_000_000

  func makeIterator() -> AnyIterator<Int> {
    var next = 0
    return AnyIterator {
      next += 1
      guard next <= Self.limit else {
        Issue.record("read \(Self.limit) elements of an endless sequence: the search did not stop")
        return nil
      }
      return next
    }
  }
}
