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
let scored = (0..<count).map { Scored(id: $0, score: Double.random(in: -1...1)) }
let orders = (0..<count).map { _ in
  Order(total: Int.random(in: 0...500), items: Int.random(in: 1...9))
}
/// `ints` with distinct values (outside -1000...1000) in its last 64 places, so finding all of
/// `few` or `many` late candidates reads everything.
let many = atRuntime(Array(5_000..<5_064))
let few = Array(many.suffix(3))
let haystack = Array(ints.dropLast(many.count)) + many.reversed()
/// Candidates that never occur: every variant reads everything.
let absentFew = atRuntime([6_000, 7_000, 8_000])
let absentMany = atRuntime(Array(6_000..<6_064))
let tags = haystack.map(Tag.init)
let fewTags = few.map(Tag.init)
let absentTags = absentFew.map(Tag.init)

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
    baseline: Variant("hand loop") {
      var total = 0
      for value in ints { total += value }
      blackHole(total)
    },
    Variant("TinySequence") { blackHole(ints.sum()) },
    Variant("stdlib reduce(0, +)") { blackHole(ints.reduce(0, +)) },
    Variant("reduce(0, &+), wrapping: other semantics") { blackHole(ints.reduce(0, &+)) }
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

  compare(
    "max(of:)",
    baseline: Variant("hand loop") {
      var best = orders[0]
      for order in orders.dropFirst() where best.total < order.total {
        best = order
      }
      blackHole(best.items)
    },
    Variant("TinySequence") { blackHole(orders.max(of: \.total)?.items) },
    Variant("stdlib max(by:)") { blackHole(orders.max(by: { $0.total < $1.total })?.items) },
    Variant("stdlib map(key).enumerated().max") {
      let index = orders.map(\.total).enumerated().max(by: { $0.element < $1.element })?.offset
      blackHole(index.map { orders[$0].items })
    },
    Variant("swift-algorithms max(count: 1, sortedBy:)") {
      blackHole(orders.max(count: 1, sortedBy: { $0.total < $1.total }).first?.items)
    }
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

  compare(
    "contains(allOf:) 3 candidates",
    baseline: Variant("hand loop") {
      var missing = few
      var found = false
      for value in haystack where missing.contains(value) {
        missing.removeAll { $0 == value }
        if missing.isEmpty {
          found = true
          break
        }
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(haystack.contains(allOf: few)) },
    Variant("stdlib candidates.allSatisfy(self.contains)") {
      blackHole(few.allSatisfy(haystack.contains))
    },
    Variant("stdlib Set(self).isSuperset(of:)") { blackHole(Set(haystack).isSuperset(of: few)) }
  )

  compare(
    "contains(allOf:) 64 candidates",
    baseline: Variant("hand loop") {
      var missing = Set(many)
      var found = false
      for value in haystack {
        if missing.remove(value) != nil, missing.isEmpty {
          found = true
          break
        }
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(haystack.contains(allOf: many)) },
    Variant("stdlib candidates.allSatisfy(self.contains)") {
      blackHole(many.allSatisfy(haystack.contains))
    },
    Variant("stdlib Set(self).isSuperset(of:)") { blackHole(Set(haystack).isSuperset(of: many)) }
  )

  compare(
    "contains(allOf:) Equatable, 3 candidates",
    baseline: Variant("hand loop") {
      var missing = fewTags
      var found = false
      for tag in tags where missing.contains(tag) {
        missing.removeAll { $0 == tag }
        if missing.isEmpty {
          found = true
          break
        }
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(tags.contains(allOf: fewTags)) },
    Variant("stdlib candidates.allSatisfy(self.contains)") {
      blackHole(fewTags.allSatisfy(tags.contains))
    }
  )

  compare(
    "contains(anyOf:) 3 candidates",
    baseline: Variant("hand loop") {
      var found = false
      for value in ints where absentFew.contains(value) {
        found = true
        break
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(ints.contains(anyOf: absentFew)) },
    Variant("stdlib candidates.contains(where: self.contains)") {
      blackHole(absentFew.contains(where: ints.contains))
    },
    Variant("stdlib !Set(self).isDisjoint(with:)") {
      blackHole(!Set(ints).isDisjoint(with: absentFew))
    }
  )

  compare(
    "contains(anyOf:) 64 candidates",
    baseline: Variant("hand loop") {
      let wanted = Set(absentMany)
      var found = false
      for value in ints where wanted.contains(value) {
        found = true
        break
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(ints.contains(anyOf: absentMany)) },
    Variant("stdlib candidates.contains(where: self.contains)") {
      blackHole(absentMany.contains(where: ints.contains))
    },
    Variant("stdlib !Set(self).isDisjoint(with:)") {
      blackHole(!Set(ints).isDisjoint(with: absentMany))
    }
  )

  compare(
    "contains(anyOf:) Equatable, 3 candidates",
    baseline: Variant("hand loop") {
      var found = false
      for tag in tags where absentTags.contains(tag) {
        found = true
        break
      }
      blackHole(found)
    },
    Variant("TinySequence") { blackHole(tags.contains(anyOf: absentTags)) },
    Variant("stdlib candidates.contains(where: self.contains)") {
      blackHole(absentTags.contains(where: tags.contains))
    }
  )
}
