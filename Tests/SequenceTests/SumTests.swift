import Testing
import TinySequence
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit)) struct SumTests {
  @Test(
    "sum of Ints",
    arguments: [
      ([], 0),
      ([7], 7),
      ([1, 2, 3], 6),
      ([-1, 1], 0),
      ([Int.max, -1, 1], Int.max),  // left to right, the partial sums stay in range
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
      (OverflowCase.intMaxPlusOne, "Sequence.sum(): Int overflow adding 1 to 9223372036854775807"),
      // The partial sum overflows, even though the total would fit.
      (.partialSumOverflows, "Sequence.sum(): Int overflow adding 1 to 9223372036854775807"),
      (.int8, "Sequence.sum(): Int8 overflow adding 1 to 127"),
      (.unsignedUnderflowFree, "Sequence.sum(): UInt overflow adding 1 to 18446744073709551615"),
      (
        .sumOf,
        "Sequence.sum(of:): Int overflow adding -9223372036854775808 to -9223372036854775808"
      ),
    ])
  func integerOverflowStopsTheProgramWithAMessage(overflow: OverflowCase, message: String) async {
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

  @Test func sumOfAddsFromLeftToRight() {
    #expect([1e16, 1, -1e16].sum(of: { $0 }) == (1e16 + 1) - 1e16)
    #expect([Int.max, -1, 1].sum(of: { $0 }) == Int.max)
    #expect([Int8.max, -1, 1].sum() == Int8.max)
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

/// The overflowing sums, run in a child process.
enum OverflowCase: String, Codable, CustomTestStringConvertible {
  case intMaxPlusOne, partialSumOverflows, int8, unsignedUnderflowFree, sumOf

  var testDescription: String { rawValue }

  /// Computes the sum, which overflows.
  func run() -> String {
    switch self {
    case .intMaxPlusOne: "\([Int.max, 1].sum())"
    case .partialSumOverflows: "\([Int.max, 1, -1].sum())"
    case .int8: "\([Int8(100), 27, 1].sum())"
    case .unsignedUnderflowFree: "\([UInt.max, 1].sum())"
    case .sumOf: "\(["a", "b"].sum(of: { _ in Int.min }))"
    }
  }
}

/// `sum()` as generic code reaches it, where the elements are only known to be
/// `AdditiveArithmetic`.
func genericSum<Element: AdditiveArithmetic>(_ elements: [Element]) -> Element {
  elements.sum()
}
