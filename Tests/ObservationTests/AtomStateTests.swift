import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit)) struct AtomStateTests {
  /// Runs `body` on `state` as an update, and returns the result and what it discarded.
  func update<Value>(
    _ state: inout AtomState<Value>, _ body: (inout Value) -> Bool
  ) -> (value: Value, batch: Delivery<Value>?, discarded: AtomState<Value>.Discarded) {
    var discarded = AtomState<Value>.Discarded()
    let (value, batch) = state.update(discarding: &discarded, body)
    return (value, batch, discarded)
  }

  @Test func withoutWatchersAnUpdateRecordsNoChange() {
    var state = AtomState(1)
    let result = update(&state) {
      $0 += 1
      return true
    }
    #expect(result.value == 2)
    #expect(result.batch == nil)
    #expect(!state.delivery.isDelivering)
  }

  @Test func withoutWatchersTheReplacedValueIsHandedBackToReleaseAfterUnlocking() {
    var state = AtomState(Owner("old"))
    let result = update(&state) {
      $0 = Owner("new")
      return true
    }
    #expect(result.value.name == "new")
    #expect(result.discarded.value?.name == "old")
  }

  @Test func aThrowingBodyHandsBackWhatItLeftBehind() {
    var state = AtomState([Owner("kept")])
    var discarded = AtomState<[Owner]>.Discarded()
    #expect(throws: Oops(code: 1)) {
      try state.update(discarding: &discarded) { (value: inout [Owner]) throws(Oops) -> Bool in
        value.append(Owner("left behind"))
        throw Oops(code: 1)
      }
    }
    #expect(state.value.map(\.name) == ["kept"])
    #expect(discarded.value?.map(\.name) == ["kept", "left behind"])
  }

  @Test func withWatchersTheOldValueTravelsWithTheChange() {
    var state = AtomState(Owner("old"))
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    let result = update(&state) {
      $0 = Owner("new")
      return true
    }
    #expect(result.batch?.change.old.name == "old")
    #expect(result.discarded.value == nil)
  }

  @Test func underLayersBothReplacedValuesAreHandedBack() {
    var state = AtomState("confirmed")
    var added = AtomState<String>.Discarded()
    _ = state.addLayer({ $0 += "+layer" }, discarding: &added)
    #expect(added.value == "confirmed")  // the visible value the layer replaced
    let result = update(&state) {
      $0 = "pushed"
      return true
    }
    #expect(result.value == "pushed+layer")
    #expect(result.discarded.confirmed == "confirmed")
    #expect(result.discarded.value == "confirmed+layer")
  }

  @Test func everyChangeMovesTheVersion() {
    var state = AtomState(0)
    let start = state.version
    _ = update(&state) { _ in true }
    #expect(state.version == start + 1)
    _ = update(&state) { _ in false }  // declined: no change
    #expect(state.version == start + 1)
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    _ = update(&state) { _ in true }
    #expect(state.version == start + 2)
  }

  @Test func withWatchersTheFirstChangeIsForTheCallerAndLaterOnesQueue() {
    var state = AtomState(1)
    let watcher = Watcher<Int> { _ in }
    _ = state.add(watcher, includingInitial: false, onMainQueue: false)
    let first = update(&state) {
      $0 += 1
      return true
    }.batch
    #expect(first?.change.old == 1)
    #expect(first?.change.new == 2)
    #expect(first?.recipients.count == 1)
    let second = update(&state) {
      $0 += 1
      return true
    }
    #expect(second.batch == nil)  // someone is delivering
    #expect(!state.delivery.turn.finish())  // a batch waits
    #expect(state.nextBatch()?.change.new == 3)
    #expect(state.delivery.turn.finish())
    #expect(!state.delivery.isDelivering)
  }

  @Test func aDeclinedUpdateChangesNothing() {
    var state = AtomState("a")
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    let result = update(&state) { _ in false }
    #expect(result.value == "a")
    #expect(result.batch == nil)
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
