import Testing
import TinySequence
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ReduceTests {
  @Test(
    "seedless reduce of Ints",
    arguments: [
      ([], nil),
      ([5], 5),
      ([3, 1, 2], 6),
      ([-4, 4], 0),
    ] as [([Int], Int?)])
  func sumsInts(input: [Int], expected: Int?) {
    #expect(input.reduce(+) == expected)
  }

  @Test func combinesFromLeftToRight() {
    #expect([10, 3, 2].reduce(-) == 5)
    #expect(["a", "b", "c"].reduce { "\($0)/\($1)" } == "a/b/c")
  }

  @Test func oneElementIsReturnedWithoutCallingTheClosure() {
    let counter = CallCounter()
    let combine: ((Int, Int)) -> Int = counter.count { $0.0 + $0.1 }
    #expect([42].reduce { combine(($0, $1)) } == 42)
    #expect(counter.count == 0)
  }

  @Test func emptyIsNilEvenWhereTheSeededFormGivesTheSeed() {
    let empty: [Int] = []
    #expect(empty.reduce(+) == nil)
    #expect(empty.reduce(0, +) == 0)
  }

  @Test func aThrownErrorStopsReadingAndKeepsItsType() {
    let input = SinglePass([1, 2, 3, 4, 5])
    do throws(Boom) {
      _ = try input.reduce { (sum: Int, next: Int) throws(Boom) -> Int in
        if next == 3 { throw Boom(at: next) }
        return sum + next
      }
      Issue.record("expected a throw")
    } catch {
      // `error` is statically a `Boom`: typed throws flow through.
      #expect(error == Boom(at: 3))
    }
    #expect(input.readCount == 3)
  }

  @Test func readsASinglePassSequenceOnceAndEndsLazyChains() {
    let input = SinglePass(Array(1...100))
    #expect(input.reduce(+) == 5050)
    #expect(input.readCount == 100)
    #expect((1...4).lazy.map { $0 * 10 }.reduce(+) == 100)
    #expect(["x"].lazy.filter { $0.isEmpty }.reduce(+) == nil)
  }

  @Test func reducesSetsAndStringsWithoutIdentity() {
    let groups: [Set<Int>] = [[1, 2], [2, 3], [5]]
    #expect(groups.reduce { $0.union($1) } == [1, 2, 3, 5])
    #expect(groups.reduce { $0.intersection($1) } == [])
    #expect(["pear", "apple", "fig"].reduce(Swift.max) == "pear")
  }
}
