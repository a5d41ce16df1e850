import Testing
import TinyTestSupport

@testable import TinySequence

/// Integer sums are exact: checked against a big-integer model on seeded random inputs of
/// every width, at the edges, on contiguous storage and on other sequences.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ExactSumTests {
  enum Width: String, CaseIterable, CustomTestStringConvertible {
    case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint

    var testDescription: String { rawValue }

    /// Runs the model check for this width; returns the counts of fitting and of not fitting
    /// totals seen.
    func check(seed: UInt64) -> (fitting: Int, notFitting: Int, mismatches: [String]) {
      switch self {
      case .int8: checkAgainstModel(Int8.self, seed: seed)
      case .int16: checkAgainstModel(Int16.self, seed: seed)
      case .int32: checkAgainstModel(Int32.self, seed: seed)
      case .int64: checkAgainstModel(Int64.self, seed: seed)
      case .int: checkAgainstModel(Int.self, seed: seed)
      case .uint8: checkAgainstModel(UInt8.self, seed: seed)
      case .uint16: checkAgainstModel(UInt16.self, seed: seed)
      case .uint32: checkAgainstModel(UInt32.self, seed: seed)
      case .uint64: checkAgainstModel(UInt64.self, seed: seed)
      case .uint: checkAgainstModel(UInt.self, seed: seed)
      }
    }
  }

  @Test("random sums match the big-integer model", arguments: Width.allCases)
  func randomSumsMatchTheModel(width: Width) {
    let seen = width.check(seed: 0x5EED_0000 + UInt64(width.rawValue.utf8.count))
    #expect(seen.mismatches == [])
    // Both outcomes are exercised many times.
    #expect(seen.fitting > 20)
    #expect(seen.notFitting > 20)
  }

  @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
  @Test("random sums of 128-bit integers match the big-integer model")
  func randomWideSumsMatchTheModel() {
    for seen in [
      checkAgainstModel(Int128.self, seed: 128), checkAgainstModel(UInt128.self, seed: 129),
    ] {
      #expect(seen.mismatches == [])
      #expect(seen.fitting > 20)
      #expect(seen.notFitting > 20)
    }
  }

  @Test func edges() {
    #expect([Int.max, 1, -1].sum() == Int.max)
    #expect([Int.min, -1, 1].sum() == Int.min)
    #expect([Int.max, Int.max, Int.min, Int.min].sum() == -2)
    #expect([Int.min, Int.max].sum() == -1)
    #expect([Int8.min, Int8.min, Int8.max, Int8.max, 2].sum() == 0)
    #expect([UInt.max, UInt.max, 0].exactSum() == (nil, true))
    #expect([UInt8.max, 1].exactSum() == (nil, true))
    #expect([Int.min, -1].exactSum() == (nil, false))
    #expect([Int.max, 1].exactSum() == (nil, true))
    #expect([Int32.min, -1].lazy.map { $0 }.exactSum() == (nil, false))
    #expect([Int32.max, 1, -2].lazy.map { $0 }.exactSum() == (Int32.max - 1, false))
  }

  @Test func contiguousSumsReachTheEndsOfTheType() {
    let count = 1 << 16
    // High halves at their extremes (-2^31 and 2^31 - 1), sums at the very ends of Int.
    #expect(Array(repeating: -(1 << 47), count: count).sum() == Int.min)
    #expect(Array(repeating: (1 << 47) - 1, count: count).sum() == Int.max - (count - 1))
    #expect(Array(repeating: 1 << 47, count: count).exactSum() == (nil, true))
    #expect(Array(repeating: 1 << 47, count: count - 1).sum() == Int.max - (1 << 47) + 1)
    #expect(Array(repeating: UInt64(1 << 48) - 1, count: count).sum() == UInt64.max - (1 << 16) + 1)
    #expect(Array(repeating: UInt64(1 << 48), count: count).exactSum() == (nil, true))
    #expect(Array(repeating: Int.min, count: 3).exactSum() == (nil, false))
    #expect(Array(repeating: UInt.max, count: 3).exactSum() == (nil, true))
  }

  @Test func partialSumsMayLeaveTheRange() {
    let count = 1 << 16
    // Small elements, then large ones, then small again; partial sums leave the range.
    var mixed = Array(repeating: 3, count: count + 5)
    mixed += Array(repeating: Int.max, count: count + 7)
    mixed += Array(repeating: Int.min, count: count + 7)
    mixed += Array(repeating: -2, count: count)
    let expected = 3 * (count + 5) - (count + 7) - 2 * count
    #expect(mixed.sum() == expected)
    #expect(mixed.lazy.map { $0 }.sum() == expected)
    #expect(mixed.reversed().sum() == expected)
    // Unsigned, with the wraps in the middle.
    var unsigned = Array(repeating: UInt.max, count: 3) + Array(repeating: 1, count: count)
    unsigned[1] = 0
    #expect(unsigned.exactSum() == (nil, true))
    #expect([UInt.max, 0, 0].sum() == UInt.max)
  }

  @Test func narrowElementsSumInWideAccumulators() {
    #expect(Array(repeating: Int8.max, count: 100_000).exactSum() == (nil, true))
    let unbalanced =
      Array(repeating: Int16.min, count: 50_000) + Array(repeating: Int16.max, count: 50_000)
    #expect(unbalanced.exactSum() == (nil, false))  // -50,000
    #expect(
      (Array(repeating: Int16.min, count: 3) + Array(repeating: Int16.max, count: 3)).sum() == -3)
    #expect(Array(repeating: UInt32.max, count: 3).exactSum() == (nil, true))
    // A total that fits reports no side.
    #expect([Int8.max, 1, -1].exactSum() == (Int8.max, false))
    #expect([Int.min, 1, -1].exactSum() == (Int.min, false))
    #expect(
      (Array(repeating: UInt32.max, count: 3) + [0]).lazy.map { $0 }.exactSum() == (nil, true))
  }
}

/// Checks `exactSum()` (the contiguous and the sequence paths), `sum()` and `sum(of:)` against
/// the model on 300 seeded random inputs, mostly of edge values; returns the counts of totals
/// that fit and that do not, and a description of each mismatch.
func checkAgainstModel<Value: FixedWidthInteger>(_: Value.Type, seed: UInt64) -> (
  fitting: Int, notFitting: Int, mismatches: [String]
) {
  var random = SeededGenerator(seed: seed)
  var seen = (fitting: 0, notFitting: 0, mismatches: [String]())
  for _ in 0..<300 {
    let count = Int.random(in: 0...24, using: &random)
    let input = (0..<count).map { _ in randomValue(Value.self, using: &random) }
    let model = input.modelSum
    let fits = model.fits(in: Value.self)
    let paths = [("contiguous", input.exactSum()), ("sequence", input.lazy.map { $0 }.exactSum())]
    for (path, found) in paths {
      let foundModel: BigInteger? = if let total = found.total { BigInteger(total) } else { nil }
      if foundModel != (fits ? model : nil)
        || (!fits && found.isAbove != (model > BigInteger(0)))
      {
        seen.mismatches.append("\(path) sum of \(Value.self)s \(input): \(found), model \(model)")
      }
    }
    if fits {
      seen.fitting += 1
      let total = input.sum()
      if BigInteger(total) != model || input.reversed().sum() != total
        || input.sum(of: { $0 }) != total
      {
        seen.mismatches.append("sum() of \(Value.self)s \(input): \(total), model \(model)")
      }
    } else {
      seen.notFitting += 1
    }
  }
  return seen
}

/// A value that is often an edge: the minimum, the maximum, zero, near them, or anything.
func randomValue<Value: FixedWidthInteger>(
  _: Value.Type, using random: inout SeededGenerator
) -> Value {
  let small = Value(truncatingIfNeeded: Int.random(in: 0...3, using: &random))
  switch Int.random(in: 0..<7, using: &random) {
  case 0: return .min
  case 1: return .max
  case 2: return .min + small
  case 3: return .max - small
  case 4: return Value.isSigned && Bool.random(using: &random) ? 0 - small : small
  default: return Value.random(in: .min ... .max, using: &random)
  }
}
