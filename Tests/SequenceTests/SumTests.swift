import Testing
import TinyTestSupport

@testable import TinySequence

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct SumTests {
  @Test(
    "sum of Ints",
    arguments: [
      ([], 0),
      ([7], 7),
      ([1, 2, 3], 6),
      ([-1, 1], 0),
      ([Int.max, -1, 1], Int.max),
      ([Int.max, 1, -1], Int.max),  // exact: a partial sum leaves the range, the total does not
      ([Int.min, -1, 1], Int.min),
      ([Int.max, Int.max, Int.min, Int.min], -2),
      ([Int.min, 0], Int.min),
    ] as [([Int], Int)])
  func sumsInts(input: [Int], expected: Int) {
    #expect(input.sum() == expected)
    #expect(input.sum(of: { $0 }) == expected)
  }

  @Test("sum of Doubles matches the left-to-right loop")
  func sumsDoublesNaively() {
    #expect([Double]().sum() == 0)
    #expect([0.1, 0.2].sum() == 0.1 + 0.2)
    #expect([1e16, 1, -1e16].sum() == (1e16 + 1) - 1e16)  // naive: rounding, not compensated
    #expect([1.0, .nan, 2.0].sum().isNaN)
    #expect([Double.infinity, -.infinity].sum().isNaN)
    #expect([Double.infinity, 1].sum() == .infinity)
  }

  @Test func sumsAnyAdditiveArithmetic() {
    #expect([Duration.seconds(1), .milliseconds(500)].sum() == .milliseconds(1500))
    #expect([UInt8(200), 55].sum() == 255)
    #expect(Set<Int>().sum() == 0)
  }

  @Test func sumOfCallsTheClosureOncePerElementInOrder() {
    var seen: [String] = []
    let total = ["a", "bb", "ccc"].sum { (word: String) -> Int in
      seen.append(word)
      return word.count
    }
    #expect(total == 6)
    #expect(seen == ["a", "bb", "ccc"])
    #expect([String]().sum(of: \.count) == 0)
  }

  @Test func sumOfTakesKeyPaths() {
    struct Order {
      let total: Double
    }
    let orders = [Order(total: 2.5), Order(total: 4)]
    #expect(orders.sum(of: \.total) == 6.5)
  }

  @Test func aThrownErrorStopsReadingAndKeepsItsType() {
    let input = SinglePass([1, 2, 3, 4])
    do throws(Boom) {
      _ = try input.sum { (value: Int) throws(Boom) -> Int in
        if value == 2 { throw Boom(at: value) }
        return value
      }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: 2))
    }
    #expect(input.readCount == 2)
  }

  @Test func endsLazyChainsAndReadsSinglePassSequencesOnce() {
    let input = SinglePass([1, 2, 3])
    #expect(input.sum() == 6)
    #expect(input.readCount == 3)
    #expect((1...10).lazy.filter { $0.isMultiple(of: 2) }.sum() == 30)
  }

  @Test(
    arguments: [
      (
        OverflowCase.intMaxPlusOne,
        "Sequence.sum(): the total is greater than Int.max (9223372036854775807), so it does "
          + "not fit in Int"
      ),
      (
        .int8Below,
        "Sequence.sum(): the total is less than Int8.min (-128), so it does not fit in Int8"
      ),
      (
        .unsignedAbove,
        "Sequence.sum(): the total is greater than UInt.max (18446744073709551615), so it "
          + "does not fit in UInt"
      ),
      (
        .singlePass,
        "Sequence.sum(): the total is less than Int.min (-9223372036854775808), so it does "
          + "not fit in Int"
      ),
      (
        .sumOf,
        "Sequence.sum(of:): the total is less than Int.min (-9223372036854775808), so it "
          + "does not fit in Int"
      ),
      (
        .largeBlock,
        "Sequence.sum(): the total is greater than Int.max (9223372036854775807), so it does "
          + "not fit in Int"
      ),
    ])
  func aTotalThatDoesNotFitStopsTheProgramWithAMessage(overflow: OverflowCase, message: String)
    async
  {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [overflow = overflow as OverflowCase] in
      // The result is printed so that the optimizer cannot drop the call.
      print(overflow.run())
    }
    let standardError = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(standardError.contains(message))
  }

  @Test func overflowFromGenericCodeStillStopsTheProgram() async {
    await #expect(processExitsWith: .failure) {
      print(genericSum([Int.max, 1]))
    }
  }

  @Test func sumOfAddsFloatingPointFromLeftToRightAndIntegersExactly() {
    #expect([1e16, 1, -1e16].sum(of: { $0 }) == (1e16 + 1) - 1e16)
    #expect([Int.max, -1, 1].sum(of: { $0 }) == Int.max)
    #expect([Int.max, 1, -1].sum(of: { $0 }) == Int.max)
    #expect([Int8.max, 1, -1].sum() == Int8.max)
    #expect([UInt8.max, 1].sum(of: { $0 &- 1 }) == 254)
  }

  @Test func aThrownErrorStopsReadingForNonIntegerValuesToo() {
    let input = SinglePass([1.5, 2.5, 3.5])
    do throws(Boom) {
      _ = try input.sum { (value: Double) throws(Boom) -> Double in
        if value == 2.5 { throw Boom(at: 2) }
        return value
      }
      Issue.record("expected a throw")
    } catch {
      #expect(error == Boom(at: 2))
    }
    #expect(input.readCount == 2)
  }

  @Test func wrappingArithmeticIsSpelledWithTheSeededReduce() {
    #expect([Int.max, 1].reduce(0, &+) == Int.min)
  }
}

/// Sums whose totals do not fit, run in a child process.
enum OverflowCase: String, Codable, CustomTestStringConvertible {
  case intMaxPlusOne, int8Below, unsignedAbove, singlePass, sumOf, largeBlock

  var testDescription: String { rawValue }

  /// Computes the sum, which does not fit.
  func run() -> String {
    switch self {
    case .intMaxPlusOne: "\([Int.max, 1].sum())"
    case .int8Below: "\([Int8(-100), 27, -56].sum())"
    case .unsignedAbove: "\([UInt.max, 1].sum())"
    case .singlePass: "\([Int.min, 1, -2].lazy.map { $0 }.sum())"
    case .sumOf: "\(["a", "b"].sum(of: { _ in Int.min }))"
    case .largeBlock: "\(Array(repeating: 1 << 47, count: 1 << 16).sum())"
    }
  }
}

/// `sum()` as generic code reaches it, where the elements are only known to be
/// `AdditiveArithmetic`.
func genericSum<Element: AdditiveArithmetic>(_ elements: [Element]) -> Element {
  elements.sum()
}
