import Testing
import TinyTestSupport
@testable import TinyWaiting

/// The list of waiting callbacks: the first kept inline, the rest in an array, one order.
@Suite(.timeLimit(suiteTimeLimit)) struct CallbackListTests {
  private func list(_ names: [String]) -> CallbackList<String> {
    var list = CallbackList<String>()
    for (id, name) in names.enumerated() { list.append((UInt64(id), name)) }
    return list
  }

  @Test(arguments: [0, 1, 2, 5])
  func entriesComeOutInTheOrderTheyWentIn(count: Int) {
    let names = (0..<count).map { "c\($0)" }
    let list = list(names)
    #expect(list.map(\.callback) == names)
    #expect(list.map(\.id) == (0..<count).map { UInt64($0) })
    #expect(list.count == count)
    #expect(list.isEmpty == (count == 0))
  }

  @Test(
    "removing keeps the others in order and gives the position",
    arguments: [
      (0, ["b", "c", "d"]), (1, ["a", "c", "d"]), (3, ["a", "b", "c"]),
    ] as [(Int, [String])])
  func removing(position: Int, remaining: [String]) {
    var list = list(["a", "b", "c", "d"])
    let removed = list.remove(id: UInt64(position))
    #expect(removed?.position == position)
    #expect(removed?.callback == ["a", "b", "c", "d"][position])
    #expect(list.map(\.callback) == remaining)
    #expect(list.count == 3)
    #expect(list.remove(id: UInt64(position)) == nil)
  }

  @Test func removingTheOnlyEntryEmptiesTheListAndItFillsAgainInOrder() {
    var list = list(["a"])
    #expect(list.remove(id: 0)?.callback == "a")
    #expect(list.isEmpty)
    #expect(list.remove(id: 0) == nil)
    list.append((7, "x"))
    list.append((8, "y"))
    #expect(list.map(\.callback) == ["x", "y"])
  }

  @Test func removingTheFirstOfManyPromotesTheSecond() {
    var list = list(["a", "b", "c"])
    _ = list.remove(id: 0)
    _ = list.remove(id: 1)
    list.append((9, "d"))
    #expect(list.map(\.callback) == ["c", "d"])
    #expect(list.remove(id: 2)?.position == 0)
    #expect(list.map(\.callback) == ["d"])
  }
}
