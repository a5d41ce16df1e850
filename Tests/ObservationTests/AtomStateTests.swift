import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomStateTests {
  typealias Released<Value: Sendable> = AtomState<Value>.Released

  /// Runs `body` on `state` as an update, and returns the result and what it took out.
  func update<Value>(
    _ state: inout AtomState<Value>, _ body: (inout Value) -> Void
  ) -> (value: Value, batch: Delivery<Value>?, released: Released<Value>) {
    var released = Released<Value>()
    let (value, batch) = state.update(releasing: &released, body)
    return (value, batch, released)
  }

  @Test func withoutWatchersAnUpdateRecordsNoChange() {
    var state = AtomState(1)
    let result = update(&state) { $0 += 1 }
    #expect(result.value == 2)
    #expect(result.batch == nil)
    #expect(!state.delivery.isDelivering)
  }

  @Test func withoutWatchersTheReplacedValueIsHandedBackToReleaseAfterUnlocking() {
    var state = AtomState(Owner("old"))
    let result = update(&state) { $0 = Owner("new") }
    #expect(result.value.name == "new")
    #expect(result.released.value?.name == "old")
  }

  @Test func aThrowingBodyHandsBackWhatItLeftBehind() {
    var state = AtomState([Owner("kept")])
    var released = Released<[Owner]>()
    #expect(throws: Oops(code: 1)) {
      try state.update(releasing: &released) { (value: inout [Owner]) throws(Oops) in
        value.append(Owner("left behind"))
        throw Oops(code: 1)
      }
    }
    #expect(state.value.map(\.name) == ["kept"])
    #expect(released.value?.map(\.name) == ["kept", "left behind"])
    #expect(state.version == 0)
  }

  @Test func withWatchersTheOldValueTravelsWithTheChange() {
    var state = AtomState(Owner("old"))
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    let result = update(&state) { $0 = Owner("new") }
    #expect(result.batch?.change.old.name == "old")
    #expect(result.released.value == nil)
  }

  @Test func underLayersBothReplacedValuesAreHandedBack() {
    var state = AtomState("confirmed")
    var added = Released<String>()
    _ = state.addLayer({ $0 += "+layer" }, releasing: &added)
    #expect(added.value == "confirmed")  // the visible value the layer replaced
    let result = update(&state) { $0 = "pushed" }
    #expect(result.value == "pushed+layer")
    #expect(result.released.confirmed == "confirmed")
    #expect(result.released.value == "confirmed+layer")
  }

  @Test func everyChangeMovesTheVersion() {
    var state = AtomState(0)
    _ = update(&state) { _ in }
    #expect(state.version == 1)
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    _ = update(&state) { _ in }
    #expect(state.version == 2)
  }

  @Test func confirmingACommitMovesTheVersionAndKeepsTheSettledLayersForRelease() {
    var state = AtomState(0)
    var released = Released<Int>()
    let (id, _, _) = state.addLayer({ $0 += 1 }, releasing: &released)
    let version = state.version
    let (sent, sentVersion) = state.valueToCommit(layer: id)
    _ = state.confirm(layer: id, sent: sent, version: sentVersion, releasing: &released)
    #expect(state.version == version + 1)  // the confirmed value changed
    #expect(state.layers == nil)
    #expect(released.layers?.count == 1)
    #expect(state.value == 1)
  }

  @Test func withWatchersTheFirstChangeIsForTheCallerAndLaterOnesQueue() {
    var state = AtomState(1)
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    let first = update(&state) { $0 += 1 }.batch
    #expect(first?.change.old == 1)
    #expect(first?.change.new == 2)
    #expect(first?.recipients.count == 1)
    let second = update(&state) { $0 += 1 }
    #expect(second.batch == nil)  // someone is delivering
    #expect(state.delivery.next()?.change.new == 3)
    #expect(state.delivery.next() == nil)
    #expect(!state.delivery.isDelivering)
  }

  @Test func anInitialChangeOfADirectWatcherIsABatchOfItsOwn() {
    var state = AtomState("now")
    let early = Watcher<String> { _ in }
    let late = Watcher<String> { _ in }
    _ = state.add(early, includingInitial: false, onMainQueue: false)
    let batch = state.add(late, includingInitial: true, onMainQueue: false).batch
    #expect(batch?.change.isInitial == true)
    #expect(batch?.change.new == "now")
    #expect(batch?.recipients.map(ObjectIdentifier.init) == [ObjectIdentifier(late)])
  }

  @Test func removingAWatcherByIdentity() {
    var state = AtomState(0)
    let watcher = Watcher<Int> { _ in }
    _ = state.add(watcher, includingInitial: false, onMainQueue: false)
    #expect(state.remove(ObjectIdentifier(watcher)) === watcher)
    #expect(state.remove(ObjectIdentifier(watcher)) == nil)
    #expect(state.watchers.isEmpty)
  }
}
