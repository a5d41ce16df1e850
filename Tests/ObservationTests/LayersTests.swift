import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct LayersTests {
  typealias IntLayers = Layers<[String], Int>

  func layers(_ tags: String...) -> IntLayers {
    var layers = IntLayers(confirmed: [])
    for (index, tag) in tags.enumerated() {
      _ = layers.append(id: UInt64(index)) { $0.append(tag) }
    }
    return layers
  }

  @Test func theVisibleValueIsTheConfirmedValueWithEveryLayerInOrder() {
    var layers = IntLayers(confirmed: ["c"])
    #expect(layers.isEmpty)
    #expect(layers.visible() == ["c"])
    #expect(layers.append(id: 0) { $0.append("a") })  // first: its commit may start
    #expect(!layers.append(id: 1) { $0.append("b") })
    #expect(layers.visible() == ["c", "a", "b"])
    #expect(layers.setConfirmed(["x"]) == ["c"])  // returns the replaced value
    #expect(layers.visible() == ["x", "a", "b"])
  }

  @Test func eachValueALaterLayerStartsFromIsKeptForTheCallerToRelease() {
    var kept: [[String]] = []
    #expect(layers("a").visible(keeping: &kept) == ["a"])
    #expect(kept.isEmpty)  // the first layer starts from the confirmed value, which keeps it
    #expect(layers("a", "b", "c").visible(keeping: &kept) == ["a", "b", "c"])
    #expect(kept == [["a"], ["a", "b"]])
  }

  @Test func eachCommitSendsItsOwnLayerOverTheConfirmedValue() {
    var layers = layers("a", "b")
    let sent = layers.valueToCommit(id: 0)
    #expect(sent.value == ["a"])  // not "b"
    #expect(layers.park(id: 1, 11) == false)  // b waits for its turn
    #expect(layers.confirm(id: 0, sent: sent.value, version: sent.version) == 11)
    #expect(layers.confirmed == ["a"])
    #expect(layers.valueToCommit(id: 1).value == ["a", "b"])
  }

  @Test func aRollbackRemovesOnlyItsLayer() {
    var layers = layers("a", "b", "c")
    #expect(layers.park(id: 2, 12) == false)
    #expect(layers.rollBack(id: 0) == nil)  // b's waiter is not parked: it finds its turn itself
    #expect(layers.visible() == ["b", "c"])
    #expect(layers.park(id: 1, 11) == true)  // b is first now: no parking
    #expect(layers.rollBack(id: 1) == 12)  // c was parked: resume it
    #expect(layers.visible() == ["c"])
    #expect(layers.valueToCommit(id: 2).value == ["c"])
  }

  @Test func aCommitThatOutlivedAPlainUpdateReappliesItsLayer() {
    var layers = layers("a")
    let sent = layers.valueToCommit(id: 0)
    _ = layers.setConfirmed(["pushed"])  // a plain update while the commit runs
    _ = layers.confirm(id: 0, sent: sent.value, version: sent.version)
    #expect(layers.confirmed == ["pushed", "a"])
    #expect(layers.isEmpty)
  }

  @Test func settlingOutOfTurnTraps() async {
    await #expect(processExitsWith: .failure) {
      var layers = Layers<Int, Int>(confirmed: 0)
      _ = layers.append(id: 0) { $0 += 1 }
      _ = layers.append(id: 1) { $0 += 1 }
      _ = layers.rollBack(id: 1)
    }
    await #expect(processExitsWith: .failure) {
      let layers = Layers<Int, Int>(confirmed: 0)
      _ = layers.valueToCommit(id: 0)
    }
  }
}

extension Layers {
  /// The visible value, with the intermediate values released here.
  fileprivate func visible() -> Value {
    var intermediates: [Value] = []
    return visible(keeping: &intermediates)
  }
}
