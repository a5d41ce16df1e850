import Testing
import TinySequence
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct MinMaxTests {
  /// Rows: the keys, the id `max(of:)` returns, the id `min(of:)` returns (ids are positions).
  static let table: [(keys: [Double], max: Int?, min: Int?)] = [
    ([], nil, nil),
    ([5], 0, 0),
    ([1, 3, 2], 1, 0),
    ([3, 1, 3, 1], 0, 1),  // ties keep the first, as max(by:) / min(by:) do
    ([0, -0.0], 0, 0),  // 0 == -0: a tie
    ([.nan, 2, 1], 1, 2),  // a leading NaN never beats a number
    ([1, .nan, 2], 2, 0),
    ([2, .nan], 0, 0),
    ([.nan, .nan, 7, .nan], 2, 2),
    ([.nan, .nan], 0, 0),  // all NaN: the first element
    ([.nan, -.infinity], 1, 1),
    ([.infinity, .nan, -.infinity], 0, 2),
  ]

  @Test(arguments: table)
  func argmaxAndArgmin(row: (keys: [Double], max: Int?, min: Int?)) {
    let items = tagged(row.keys)
    #expect(items.max(of: \.key)?.id == row.max)
    #expect(items.min(of: \.key)?.id == row.min)
  }

  @Test func agreesWithTheStandardLibraryOnTiesWithoutNaN() {
    var generator = SeededGenerator(seed: 7)
    for length in 0..<200 {
      let items = tagged((0..<length).map { _ in Double(Int.random(in: 0..<6, using: &generator)) })
      #expect(items.max(of: \.key) == items.max(by: { $0.key < $1.key }))
      #expect(items.min(of: \.key) == items.min(by: { $0.key < $1.key }))
    }
  }

  @Test func agreesWithTheStandardLibraryForIntegerKeys() {
    var generator = SeededGenerator(seed: 11)
    for length in 0..<200 {
      let pairs = (0..<length).map { (id: $0, key: Int.random(in: 0..<6, using: &generator)) }
      #expect(pairs.max(of: \.key)?.id == pairs.max(by: { $0.key < $1.key })?.id)
      #expect(pairs.min(of: \.key)?.id == pairs.min(by: { $0.key < $1.key })?.id)
    }
  }

  @Test func computesTheKeyOncePerElement() {
    let words = ["kiwi", "banana", "fig", "cherry"]
    let ours = CallCounter()
    #expect(words.max(of: ours.count { $0.count }) == "banana")
    #expect(ours.count == words.count)

    let stdlib = CallCounter()
    let key = stdlib.count { (word: String) in word.count }
    #expect(words.max(by: { key($0) < key($1) }) == "banana")
    #expect(stdlib.count == 2 * (words.count - 1))

    let minimum = CallCounter()
    #expect(words.min(of: minimum.count { $0.count }) == "fig")
    #expect(minimum.count == words.count)
  }

  @Test func oneElementIsReturnedAfterOneKeyCall() {
    let keys = CallCounter()
    #expect(["only"].max(of: keys.count { $0.count }) == "only")
    #expect(["only"].min(of: keys.count { $0.count }) == "only")
    #expect(keys.count == 2)
    let empty = CallCounter()
    #expect([String]().max(of: empty.count { $0.count }) == nil)
    #expect(empty.count == 0)
  }

  @Test func minOfStopsReadingAtTheFirstError() {
    let input = SinglePass([4, 8, 15, 16])
    do throws(Boom) {
      _ = try input.min { (value: Int) throws(Boom) -> Int in
        if value == 8 { throw Boom(at: value) }
        return value
      }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: 8))
    }
    #expect(input.readCount == 2)
  }

  @Test func integerKeysTieAndSkipNothing() {
    let pairs = [
      (id: 0, key: 2), (id: 1, key: 5), (id: 2, key: 5), (id: 3, key: -1), (id: 4, key: -1),
    ]
    #expect(pairs.max(of: \.key)?.id == 1)
    #expect(pairs.min(of: \.key)?.id == 3)
    #expect([(id: 0, key: Int.min)].min(of: \.key)?.id == 0)
  }

  @Test func worksWithAnyComparableKey() {
    let words = ["pear", "Apple", "fig"]
    #expect(words.max(of: { $0.lowercased() }) == "pear")
    #expect(words.min(of: { $0.lowercased() }) == "Apple")
    #expect(words.min(of: { Duration.seconds($0.count) }) == "fig")
    #expect([Int]().max(of: { $0 }) == nil)
  }

  @Test func aThrownErrorStopsReadingAndKeepsItsType() {
    let input = SinglePass([4, 8, 15, 16])
    do throws(Boom) {
      _ = try input.max { (value: Int) throws(Boom) -> Int in
        if value == 15 { throw Boom(at: value) }
        return value
      }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: 15))
    }
    #expect(input.readCount == 3)

    do throws(Boom) {
      _ = try [1].min { (_: Int) throws(Boom) -> Int in throw Boom(at: 0) }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: 0))
    }
  }

  @Test func readsASinglePassSequenceOnceAndEndsLazyChains() {
    let input = SinglePass(["a", "abc", "ab"])
    #expect(input.max(of: \.count) == "abc")
    #expect(input.readCount == 3)
    #expect((1...9).lazy.map { $0 * 7 % 10 }.max(of: { $0 }) == 9)
  }

  /// Key patterns, by position and a generator: orders, ties and NaNs that a running best
  /// meets differently.
  static let patterns: [(name: String, key: @Sendable (Int, inout SeededGenerator) -> Double)] = [
    ("few values, many ties", { _, g in Double(Int.random(in: 0..<6, using: &g)) }),
    ("ascending", { i, _ in Double(i) }),
    ("ascending in tied pairs", { i, _ in Double(i / 2) }),
    ("descending", { i, _ in Double(-i) }),
    ("noisy upward", { i, g in Double(i + Int.random(in: 0..<4, using: &g)) }),
    ("noisy downward", { i, g in Double(-i - Int.random(in: 0..<4, using: &g)) }),
    ("sawtooth", { i, _ in Double(i % 300) }),
    ("a new best every 17", { i, g in Double(i / 17 * 10 + Int.random(in: 0..<5, using: &g)) }),
    ("crowded, then flat", { i, _ in Double(min(i, 700)) }),
    ("upward with NaNs", { i, g in Int.random(in: 0..<8, using: &g) == 0 ? .nan : Double(i) }),
    ("leading NaNs, then upward", { i, _ in i < 20 ? .nan : Double(i) }),
  ]
  static let lengths = [0, 1, 2, 9, 17, 100, 1_032, 1_033, 1_034, 1_100, 2_100, 3_000]

  /// The position `max(of:)` (or `min(of:)`) must return, stated without a running best: the
  /// first position holding the largest (smallest) key that is not NaN; 0 when every key is
  /// NaN; nil when there are none.
  static func expected(_ keys: [Double], largest: Bool) -> Int? {
    guard !keys.isEmpty else { return nil }
    let ordinary = keys.filter { !$0.isNaN }
    guard let extreme = largest ? ordinary.max() : ordinary.min() else { return 0 }
    return keys.firstIndex(of: extreme)
  }

  @Test(arguments: patterns.indices)
  func arraysSlicesAndSinglePassSequencesMatchTheModel(pattern: Int) {
    let (name, makeKey) = Self.patterns[pattern]
    var generator = SeededGenerator(seed: UInt64(pattern))
    for length in Self.lengths {
      let keys = (0..<length).map { makeKey($0, &generator) }
      let items = tagged(keys)
      let context = Comment(rawValue: "\(name), \(length) elements")
      for largest in [true, false] {
        let want = Self.expected(keys, largest: largest)
        let calls = CallCounter()
        let key = calls.count { (item: Tagged) in item.key }
        let fromArray = largest ? items.max(of: key) : items.min(of: key)
        #expect(fromArray?.id == want, context)
        #expect(calls.count == length, context)
        let onePass = SinglePass(items)
        #expect((largest ? onePass.max(of: \.key) : onePass.min(of: \.key))?.id == want, context)
        // A slice's storage starts inside the array's.
        let dropped = min(length, 7)
        let slice = items[dropped...]
        let sliceWant = Self.expected(Array(keys[dropped...]), largest: largest).map {
          $0 + dropped
        }
        #expect((largest ? slice.max(of: \.key) : slice.min(of: \.key))?.id == sliceWant, context)
      }
      // The same search over integer keys, where ties and order are the same.
      if !keys.contains(where: \.isNaN) {
        let pairs = keys.enumerated().map { (id: $0.offset, key: Int($0.element)) }
        #expect(pairs.max(of: \.key)?.id == Self.expected(keys, largest: true), context)
        #expect(pairs.min(of: \.key)?.id == Self.expected(keys, largest: false), context)
      }
    }
  }

  @Test(arguments: [0, 5, 9, 500, 1_032, 1_033, 1_040, 2_999])
  func anErrorStopsTheSearchAtItsElement(failing position: Int) {
    // Ascending keys make every element a new best.
    let values = Array(0..<3_000)
    var calls = 0
    do throws(Boom) {
      _ = try values.max { (value: Int) throws(Boom) -> Int in
        calls += 1
        if value == position { throw Boom(at: value) }
        return value
      }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: position))
    }
    #expect(calls == position + 1)
  }
}
