// TinySequence helpers at 1M elements, each paired with the hand-written loop that has the same
// semantics, next to the standard library's and swift-algorithms' spellings.

import Algorithms
import Benchmark
import BenchmarkSupport
import TinySequence

let count = 1_000_000

struct Order {
  let total: Int
  let items: Int
}

/// An element ranked by a floating-point score.
struct Scored {
  let id: Int
  let score: Double
}

/// An element that is `Equatable` but not `Hashable`, for the `Equatable` overloads.
struct Tag: Equatable {
  let value: Int
}

/// A deliberately expensive key: the sum of the decimal digits, about 19 integer divisions for
/// the full-width values in `naturals`.
@inline(never)
func digitSum(_ value: Int) -> Int {
  var rest = value.magnitude
  var sum = 0
  while rest > 0 {
    sum += Int(rest % 10)
    rest /= 10
  }
  return sum
}

/// Returns its argument through a call the optimizer cannot see into, so that candidate lists
/// are runtime values for every variant (a global array literal is otherwise initialized at
/// compile time and a hand loop over it unrolled into compares with constants).
@inline(never)
func atRuntime<T>(_ value: T) -> T {
  value
}

// Global constants are initialized lazily, so each benchmark process builds only its data.
let ints = (0..<count).map { _ in Int.random(in: -1_000...1_000) }
let naturals = (0..<count).map { _ in Int.random(in: 1_000_000_000_000_000_000...Int.max) }
let doubles = (0..<count).map { _ in Double.random(in: -1...1) }
/// Full-width `Int`s whose total fits: each value followed by its negation.
let fullWidth = naturals.prefix(count / 2).flatMap { [$0, -$0] }
let scored = (0..<count).map { Scored(id: $0, score: Double.random(in: -1...1)) }
let orders = (0..<count).map { _ in
  Order(total: Int.random(in: 0...500), items: Int.random(in: 1...9))
}
/// Orders whose totals trend upward with noise: a new largest total every few elements, at
/// irregular steps, so a loop that branches on "new maximum" mispredicts often.
let risingOrders = (0..<count).map {
  Order(total: $0 + Int.random(in: 0..<4), items: Int.random(in: 1...9))
}
/// The variants every `max(of:)` group over `Order`s runs: the hand loop (the baseline),
/// TinySequence and the standard library's `max(by:)`, each returning the largest total's items.
/// `orders` is read when a variant runs, so a process builds only the data it measures.
func maxOfVariants(_ orders: @escaping @autoclosure () -> [Order]) -> (
  handLoop: Variant, tinySequence: Variant, standardLibrary: Variant
) {
  (
    Variant("hand loop") {
      let orders = orders()
      var best = orders[0]
      for order in orders.dropFirst() where best.total < order.total {
        best = order
      }
      blackHole(best.items)
    },
    Variant("TinySequence") { blackHole(orders().max(of: \.total)?.items) },
    Variant("stdlib max(by:)") { blackHole(orders().max(by: { $0.total < $1.total })?.items) }
  )
}

/// A sequence that is not a collection: no random access, no contiguous storage, an
/// underestimated count of 0, the way a single-pass sequence reaches the helpers.
struct OnePass: Sequence {
  let base: [Int]

  func makeIterator() -> IndexingIterator<[Int]> {
    base.makeIterator()
  }
}

/// Checks a variant's answer once before it is timed: a benchmark of a wrong answer would
/// measure nothing.
func checked(_ name: String, _ expected: Bool, _ body: @escaping () -> Bool) -> Variant {
  guard body() == expected else { fatalError("\(name) answers \(!expected)") }
  return Variant(name) { blackHole(body()) }
}

/// The `contains` groups for `count` candidates: on an `Array` and on a sequence that is not a
/// collection, `contains(allOf:)` with every candidate at the end (so every variant reads all
/// 1M elements) and `contains(anyOf:)` with no candidate present. Each group's baseline is
/// TinySequence; the variants are the standard library's spellings, so a ratio above 1.00× is
/// a spelling slower than the helper.
func containsGroups(candidates count: Int) {
  let configuration = Benchmark.Configuration(
    metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1,
    maxDuration: .seconds(1), maxIterations: 100)
  let wanted = atRuntime(Array(5_000..<(5_000 + count)))
  let absent = atRuntime(Array(6_000..<(6_000 + count)))
  let haystack = Array(ints.dropLast(count)) + wanted.reversed()
  let onePass = OnePass(base: haystack)
  let absentOnePass = OnePass(base: ints)
  let label = "\(count.formatted()) candidate\(count == 1 ? "" : "s")"
  // Scanning once per candidate is left out where it would take seconds an iteration.
  let perCandidateScans = count <= 64

  compare(
    "contains(allOf:) \(label), Array", configuration: configuration,
    baseline: checked("TinySequence", true) { haystack.contains(allOf: wanted) },
    checked("stdlib Set(self).isSuperset(of:)", true) { Set(haystack).isSuperset(of: wanted) })
  if perCandidateScans {
    compare(
      "contains(allOf:) \(label), Array, per-candidate scans", configuration: configuration,
      baseline: checked("TinySequence", true) { haystack.contains(allOf: wanted) },
      checked("stdlib candidates.allSatisfy(self.contains)", true) {
        wanted.allSatisfy(haystack.contains)
      })
  }
  compare(
    "contains(allOf:) \(label), single pass", configuration: configuration,
    baseline: checked("TinySequence", true) { onePass.contains(allOf: wanted) },
    checked("stdlib Set(self).isSuperset(of:)", true) { Set(onePass).isSuperset(of: wanted) })
  compare(
    "contains(anyOf:) \(label), Array", configuration: configuration,
    baseline: checked("TinySequence", false) { ints.contains(anyOf: absent) },
    checked("stdlib !Set(self).isDisjoint(with:)", false) { !Set(ints).isDisjoint(with: absent) },
    checked("stdlib self.contains(where: Set(candidates).contains)", false) {
      ints.contains(where: Set(absent).contains)
    })
  if perCandidateScans {
    compare(
      "contains(anyOf:) \(label), Array, per-candidate scans", configuration: configuration,
      baseline: checked("TinySequence", false) { ints.contains(anyOf: absent) },
      checked("stdlib candidates.contains(where: self.contains)", false) {
        absent.contains(where: ints.contains)
      },
      checked("stdlib self.contains(where: candidates.contains)", false) {
        ints.contains(where: absent.contains)
      })
  }
  compare(
    "contains(anyOf:) \(label), single pass", configuration: configuration,
    baseline: checked("TinySequence", false) { absentOnePass.contains(anyOf: absent) },
    checked("stdlib !Set(self).isDisjoint(with:)", false) {
      !Set(absentOnePass).isDisjoint(with: absent)
    },
    checked("stdlib self.contains(where: Set(candidates).contains)", false) {
      absentOnePass.contains(where: Set(absent).contains)
    })
}

/// `Tag`s with three distinct candidates at the end, and three that never occur.
let fewTags = atRuntime([5_061, 5_062, 5_063].map(Tag.init))
let absentTags = atRuntime([6_000, 7_000, 8_000].map(Tag.init))
let tags = ints.dropLast(3).map(Tag.init) + fewTags.reversed()

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 3,
    maxDuration: .seconds(2),
    maxIterations: 400
  )

  compare(
    "reduce(+)",
    baseline: Variant("hand loop") {
      var iterator = ints.makeIterator()
      guard var result = iterator.next() else { return blackHole(0) }
      while let element = iterator.next() { result = result + element }
      blackHole(result)
    },
    Variant("TinySequence") { blackHole(ints.reduce(+)) },
    Variant("stdlib dropFirst().reduce(first, +)") {
      blackHole(ints.first.map { ints.dropFirst().reduce($0, +) })
    }
  )

  compare(
    "sum()",
    calibrate: true,
    baseline: Variant("wrapping hand loop (&+=)") {
      var total = 0
      for value in ints { total &+= value }
      blackHole(total)
    },
    Variant("TinySequence (exact)") { blackHole(ints.sum()) },
    Variant("checked hand loop (+=)") {
      var total = 0
      for value in ints { total += value }
      blackHole(total)
    },
    Variant("stdlib reduce(0, +)") { blackHole(ints.reduce(0, +)) }
  )

  compare(
    "sum() full-width Ints",
    baseline: Variant("wrapping hand loop (&+=)") {
      var total = 0
      for value in fullWidth { total &+= value }
      blackHole(total)
    },
    Variant("TinySequence (exact)") { blackHole(fullWidth.sum()) }
  )

  compare(
    "sum() Double",
    baseline: Variant("hand loop") {
      var total = 0.0
      for value in doubles { total += value }
      blackHole(total)
    },
    Variant("TinySequence") { blackHole(doubles.sum()) }
  )

  compare(
    "sum(of:)",
    baseline: Variant("hand loop") {
      var total = 0
      for order in orders { total += order.total }
      blackHole(total)
    },
    Variant("TinySequence") { blackHole(orders.sum(of: \.total)) },
    Variant("stdlib reduce(0) { $0 + $1.total }") {
      blackHole(orders.reduce(0) { $0 + $1.total })
    },
    Variant("stdlib map(\\.total).reduce(0, +)") { blackHole(orders.map(\.total).reduce(0, +)) }
  )

  let unordered = maxOfVariants(orders)
  compare(
    "max(of:)",
    baseline: unordered.handLoop,
    unordered.tinySequence,
    unordered.standardLibrary,
    Variant("stdlib map(key).enumerated().max") {
      let index = orders.map(\.total).enumerated().max(by: { $0.element < $1.element })?.offset
      blackHole(index.map { orders[$0].items })
    },
    Variant("swift-algorithms max(count: 1, sortedBy:)") {
      blackHole(orders.max(count: 1, sortedBy: { $0.total < $1.total }).first?.items)
    }
  )

  let rising = maxOfVariants(risingOrders)
  compare(
    "max(of:), totals trending upward with noise",
    baseline: rising.handLoop,
    rising.tinySequence,
    rising.standardLibrary
  )

  compare(
    "min(of:)",
    baseline: Variant("hand loop") {
      var best = orders[0]
      for order in orders.dropFirst() where order.total < best.total {
        best = order
      }
      blackHole(best.items)
    },
    Variant("TinySequence") { blackHole(orders.min(of: \.total)?.items) },
    Variant("stdlib min(by:)") { blackHole(orders.min(by: { $0.total < $1.total })?.items) }
  )

  compare(
    "max(of:) Double key",
    calibrate: true,
    baseline: Variant("hand loop, NaN-aware") {
      var best = scored[0]
      var rest = scored.dropFirst()
      while best.score.isNaN, let next = rest.popFirst() {
        if !next.score.isNaN { best = next }
      }
      for element in rest where best.score < element.score { best = element }
      blackHole(best.id)
    },
    Variant("TinySequence") { blackHole(scored.max(of: \.score)?.id) },
    Variant("hand loop, NaN-unaware") {
      var best = scored[0]
      for element in scored.dropFirst() where best.score < element.score { best = element }
      blackHole(best.id)
    },
    Variant("stdlib max(by:), NaN-unaware") {
      blackHole(scored.max(by: { $0.score < $1.score })?.id)
    }
  )

  compare(
    "max(of:) expensive key",
    calibrate: true,
    baseline: Variant("hand loop") {
      var best = naturals[0]
      var bestKey = digitSum(best)
      for value in naturals.dropFirst() {
        let key = digitSum(value)
        if bestKey < key {
          best = value
          bestKey = key
        }
      }
      blackHole(best)
    },
    Variant("TinySequence") { blackHole(naturals.max(of: digitSum)) },
    Variant("stdlib max(by:)") { blackHole(naturals.max(by: { digitSum($0) < digitSum($1) })) }
  )

  for count in [1, 3, 8, 24, 25, 64, 1_000] {
    containsGroups(candidates: count)
  }

  compare(
    "contains(allOf:) Equatable, 3 candidates",
    baseline: checked("TinySequence", true) { tags.contains(allOf: fewTags) },
    checked("stdlib candidates.allSatisfy(self.contains)", true) {
      fewTags.allSatisfy(tags.contains)
    }
  )

  compare(
    "contains(anyOf:) Equatable, 3 candidates",
    baseline: checked("TinySequence", false) { tags.contains(anyOf: absentTags) },
    checked("stdlib candidates.contains(where: self.contains)", false) {
      absentTags.contains(where: tags.contains)
    },
    checked("stdlib self.contains(where: candidates.contains)", false) {
      tags.contains(where: absentTags.contains)
    }
  )
}
