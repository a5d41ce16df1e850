import Testing
import TinySequence
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContainsAllAnyTests {
  /// Rows: the sequence, the candidates, `contains(allOf:)`, `contains(anyOf:)`.
  static let table: [(elements: [Int], candidates: [Int], all: Bool, any: Bool)] = [
    ([], [], true, false),
    ([1, 2], [], true, false),
    ([], [1], false, false),
    ([1], [1], true, true),
    ([1], [1, 1], true, true),  // candidates are a set
    ([2, 2, 2], [2], true, true),
    ([1, 2, 3], [3, 1], true, true),
    ([1, 2, 3], [3, 4], false, true),
    ([1, 2, 3], [4, 5], false, false),
    ([1, 2, 3], [1, 2, 3, 4], false, true),
    // Hashable elements are compared with up to 24 candidates, then hashed.
    (Array(0..<8), Array(0..<8), true, true),
    (Array(0..<9), Array(0..<9), true, true),
    (Array(0..<24), Array(0..<24), true, true),  // 24: the last count that compares
    (Array(0..<25), Array(0..<25), true, true),  // 25: the first count that hashes
    (Array(0..<23), Array(0..<24), false, true),
    (Array(1..<25), Array(0..<24), false, true),
    (Array(0..<24), Array(0..<25), false, true),
    (Array(1..<26), Array(0..<25), false, true),
    (Array(0..<24), Array(24..<49), false, false),
    (Array(0..<20), Array(0..<12), true, true),
    (Array(0..<20), Array(10..<30), false, true),
    (Array(0..<20), Array(20..<40), false, false),
    ([], Array(0..<9), false, false),
    ([3, 4], Array(repeating: 3, count: 9), true, true),  // 9 candidates, 1 distinct
  ]

  @Test("Hashable overloads", arguments: table)
  func hashable(row: (elements: [Int], candidates: [Int], all: Bool, any: Bool)) {
    #expect(row.elements.contains(allOf: row.candidates) == row.all)
    #expect(row.elements.contains(anyOf: row.candidates) == row.any)
  }

  @Test("Equatable overloads", arguments: table)
  func equatable(row: (elements: [Int], candidates: [Int], all: Bool, any: Bool)) {
    let elements = row.elements.map(EquatableOnly.init)
    let candidates = row.candidates.map(EquatableOnly.init)
    #expect(elements.contains(allOf: candidates) == row.all)
    #expect(elements.contains(anyOf: candidates) == row.any)
  }

  @Test("Equatable overloads reached from generic code with Hashable elements", arguments: table)
  func equatableFromGenericCode(row: (elements: [Int], candidates: [Int], all: Bool, any: Bool)) {
    func all<Element: Equatable>(_ elements: [Element], _ candidates: [Element]) -> Bool {
      elements.contains(allOf: candidates)
    }
    func any<Element: Equatable>(_ elements: [Element], _ candidates: [Element]) -> Bool {
      elements.contains(anyOf: candidates)
    }
    #expect(all(row.elements, row.candidates) == row.all)
    #expect(any(row.elements, row.candidates) == row.any)
  }

  @Test func stopsReadingOnceTheAnswerIsKnown() {
    let forAll = SinglePass([1, 2, 3, 4, 5])
    #expect(forAll.contains(allOf: [2, 1]))
    #expect(forAll.readCount == 2)

    let forAny = SinglePass([1, 2, 3, 4, 5])
    #expect(forAny.contains(anyOf: [9, 3]))
    #expect(forAny.readCount == 3)

    let equatable = SinglePass([1, 2, 3, 4, 5].map(EquatableOnly.init))
    #expect(equatable.contains(allOf: [EquatableOnly(value: 2)]))
    #expect(equatable.readCount == 2)

    let manyCandidates = SinglePass(Array(0..<100))
    #expect(manyCandidates.contains(allOf: Array((0..<12).reversed())))
    #expect(manyCandidates.readCount == 12)

    let manyForAny = SinglePass(Array(0..<100))
    #expect(manyForAny.contains(anyOf: Array(50..<70)))
    #expect(manyForAny.readCount == 51)

    let noCandidates = SinglePass([1, 2])
    #expect(noCandidates.contains(allOf: []))
    #expect(!noCandidates.contains(anyOf: []))
    #expect(noCandidates.readCount == 0)
  }

  @Test func answersOnInfiniteSequencesWhenTheCandidatesOccur() {
    // Each sequence counts up from 1 without end, but fails the test and ends after a million
    // elements, far more than any of these answers needs: a search that does not stop at the
    // answer fails with a message instead of hanging.
    #expect(Naturals().contains(allOf: [500, 3]))
    #expect(Naturals().contains(allOf: Array(stride(from: 5, through: 100, by: 5))))
    #expect(Naturals().contains(allOf: Array(1...20)))  // hashing
    #expect(Naturals().contains(anyOf: Array(-20...(-1)) + [1_000]))  // hashing
    #expect(Naturals().contains(anyOf: [-1, 7]))
    #expect(Naturals().lazy.map { $0 * $0 }.contains(anyOf: [99, 144]))
    #expect(Naturals().lazy.map(EquatableOnly.init).contains(allOf: [EquatableOnly(value: 9)]))
    #expect(Naturals().lazy.map(EquatableOnly.init).contains(anyOf: [EquatableOnly(value: 9)]))
  }

  @Test func theCandidatesAreReadOnceUpFront() {
    for count in [0, 3, 12] {
      let forAll = SinglePass(Array(0..<count))
      #expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].contains(allOf: forAll))
      #expect(forAll.readCount == count)
      // Read whole even when the first element already answers.
      let forAny = SinglePass(Array(0..<count))
      #expect([0].contains(anyOf: forAny) == (count > 0))
      #expect(forAny.readCount == count)
      let equatable = SinglePass((0..<count).map(EquatableOnly.init))
      #expect([EquatableOnly(value: 0)].contains(anyOf: equatable) == (count > 0))
      #expect(equatable.readCount == count)
    }
  }

  @Test func acceptsAnySequenceOfCandidates() {
    let tags = ["swift", "linux", "ios"]
    #expect(tags.contains(allOf: Set(["ios", "swift"])))
    #expect(tags.contains(anyOf: ["mac", "ios"].lazy.map { $0 }))
    #expect("hello".contains(allOf: "leh"))
    #expect(!"hello".contains(anyOf: "xyz"))
  }

  @Test(
    "every candidate count, every strategy, matches a model on seeded random inputs",
    arguments: Array(1...40) + [64, 100])
  func matchesTheModel(candidateCount: Int) {
    var random = SeededGenerator(seed: 0xC0_FFEE + UInt64(candidateCount))
    for _ in 0..<30 {
      let elements = (0..<Int.random(in: 0...80, using: &random)).map { _ in
        Int.random(in: 0..<60, using: &random)
      }
      let candidates = (0..<candidateCount).map { _ in Int.random(in: 0..<70, using: &random) }
      let wanted = Set(candidates)
      // The model: the answers, and how far a single pass must read to know them.
      let firstPositions = wanted.map { elements.firstIndex(of: $0) }
      let all = firstPositions.allSatisfy { $0 != nil }
      let allRead = all ? (firstPositions.map { $0! }.max() ?? -1) + 1 : elements.count
      let anyPosition = elements.firstIndex(where: wanted.contains)
      let anyRead = wanted.isEmpty ? 0 : anyPosition.map { $0 + 1 } ?? elements.count

      let forAll = SinglePass(elements)
      #expect(forAll.contains(allOf: candidates) == all)
      #expect(forAll.readCount == allRead)
      let forAny = SinglePass(elements)
      #expect(forAny.contains(anyOf: candidates) == (anyPosition != nil))
      #expect(forAny.readCount == anyRead)
      #expect(elements.contains(allOf: candidates) == all)
      #expect(elements.contains(anyOf: candidates) == (anyPosition != nil))

      // The same through the Equatable overloads and through a type with references.
      let equatable = SinglePass(elements.map(EquatableOnly.init))
      #expect(equatable.contains(allOf: candidates.map(EquatableOnly.init)) == all)
      #expect(equatable.readCount == allRead)
      let equatableAny = SinglePass(elements.map(EquatableOnly.init))
      #expect(
        equatableAny.contains(anyOf: candidates.map(EquatableOnly.init)) == (anyPosition != nil))
      #expect(equatableAny.readCount == anyRead)
      let strings = SinglePass(elements.map { "tag \($0)" })
      #expect(strings.contains(allOf: candidates.map { "tag \($0)" }) == all)
      #expect(strings.readCount == allRead)
      let stringsAny = SinglePass(elements.map { "tag \($0)" })
      #expect(stringsAny.contains(anyOf: candidates.map { "tag \($0)" }) == (anyPosition != nil))
      #expect(stringsAny.readCount == anyRead)
    }
  }

  @Test func upTo24CandidatesAreComparedAndMoreAreHashed() {
    // The documented switch: up to 24 candidates, no element or candidate is hashed; from 25,
    // the candidates are hashed into a set and each element is hashed once.
    for (count, hashes) in [(24, false), (25, true)] {
      let hashed = Counter()
      let elements = (0..<30).map { HashCounted(value: $0, hashed: hashed) }
      let candidates = (0..<count).map { HashCounted(value: $0, hashed: hashed) }
      #expect(elements.contains(allOf: candidates))
      #expect((hashed.value > 0) == hashes, "contains(allOf:) with \(count) candidates")
      let before = hashed.value
      #expect(elements.contains(anyOf: candidates))
      #expect((hashed.value > before) == hashes, "contains(anyOf:) with \(count) candidates")
    }
  }

  @Test func doesNotChangeTheToolchainsSubsequenceContains() {
    let numbers = [1, 2, 3]
    #expect(numbers.contains([2, 3]))  // the toolchain's: a contiguous run
    #expect(!numbers.contains([3, 1]))
    #expect(numbers.contains(allOf: [3, 1]))  // ours: every one, anywhere
  }
}

/// An integer that counts every time it is hashed.
private struct HashCounted: Hashable, Sendable {
  let value: Int
  let hashed: Counter

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }

  func hash(into hasher: inout Hasher) {
    _ = hashed.increment()
    hasher.combine(value)
  }
}
