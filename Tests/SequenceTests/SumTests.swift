import Testing
import TinySequence
import TinyTestSupport

@Suite struct SumTests {
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

  @Test func integerOverflowTrapsLikePlus() async {
    await #expect(processExitsWith: .failure) {
      _ = [Int.max, 1].sum()
    }
    await #expect(processExitsWith: .failure) {
      _ = [Int.max, 1, -1].sum()  // the partial sum overflows, even though the total would fit
    }
    await #expect(processExitsWith: .failure) {
      _ = [Int8(100), 27, 1].sum()
    }
    await #expect(processExitsWith: .failure) {
      _ = [UInt.max, 1].sum()
    }
    await #expect(processExitsWith: .failure) {
      _ = ["a", "b"].sum(of: { _ in Int.min })
    }
  }

  @Test func wrappingArithmeticIsSpelledWithTheSeededReduce() {
    #expect([Int.max, 1].reduce(0, &+) == Int.min)
  }
}
