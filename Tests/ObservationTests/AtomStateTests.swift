import Testing
import TinyTestSupport

@testable import TinyObservation

/// The atom's state machine, driven as a script: what each transition stores, what it hands back
/// to deliver, and what it hands back to release after unlocking.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomStateTests {
  /// Runs `body` on `state` as an update that cannot throw.
  func update<Value>(_ state: inout AtomState<Value>, _ body: (inout Value) -> Void) -> Step<Value>
  {
    var leftover: Value?
    let step = state.update(leftover: &leftover, body)
    #expect(leftover == nil)
    return step
  }

  /// A state with one watcher that does nothing.
  func watched<Value>(_ value: Value) -> AtomState<Value> {
    var state = AtomState(value)
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    return state
  }

  @Test func withoutWatchersOrReadsAnUpdateRecordsNoChange() {
    var state = AtomState(1)
    let step = update(&state) { $0 += 1 }
    #expect(step.value == 2)
    #expect(step.batch == nil)
    #expect(!state.isDelivering)
  }

  @Test func withoutWatchersTheReplacedValueIsHandedBackToReleaseAfterUnlocking() {
    var state = AtomState(Owner("old"))
    let step = update(&state) { $0 = Owner("new") }
    #expect(step.value.name == "new")
    #expect(step.replaced?.name == "old")
  }

  @Test func aThrowingBodyHandsBackWhatItLeftBehindAndChangesNothing() {
    var state = AtomState([Owner("kept")])
    var leftover: [Owner]?
    #expect(throws: Oops(code: 1)) {
      try state.update(leftover: &leftover) { (value: inout [Owner]) throws(Oops) in
        value.append(Owner("left behind"))
        throw Oops(code: 1)
      }
    }
    #expect(state.value.map(\.name) == ["kept"])
    #expect(leftover?.map(\.name) == ["kept", "left behind"])
    #expect(state.version == 0)
  }

  @Test func withWatchersTheOldValueTravelsWithTheChange() {
    var state = watched(Owner("old"))
    let step = update(&state) { $0 = Owner("new") }
    #expect(step.batch?.change.old.name == "old")
    #expect(step.batch?.isReported == false)
    #expect(step.replaced == nil)
  }

  @Test func aValueEverReadReportsEveryLaterChangeEvenWithoutWatchers() {
    var state = AtomState(0)
    #expect(update(&state) { $0 = 1 }.batch == nil)
    state.isRead = true
    let step = update(&state) { $0 = 2 }
    #expect(step.batch?.isReported == true)
    #expect(step.batch?.recipients.isEmpty == true)
    #expect(step.batch?.change.old == 1)
    #expect(state.takeWaiting().isEmpty)
    #expect(update(&state) { $0 = 3 }.batch?.isReported == true)  // it stays reported
  }

  @Test func underLayersBothReplacedValuesAreHandedBack() {
    var state = AtomState("confirmed")
    let added = state.addLayer { $0 += "+layer" }
    #expect(added.step.replaced == "confirmed")  // the visible value the layer replaced
    let step = update(&state) { $0 = "pushed" }
    #expect(step.value == "pushed+layer")
    #expect(step.alsoReplaced == ["confirmed"])
    #expect(step.replaced == "confirmed+layer")
  }

  @Test func everyChangeMovesTheVersion() {
    var state = AtomState(0)
    _ = update(&state) { _ in }
    #expect(state.version == 1)
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    _ = update(&state) { _ in }
    #expect(state.version == 2)
  }

  @Test func confirmingACommitMovesTheVersionAndHandsTheSettledLayersBack() {
    var state = AtomState(0)
    let (id, _, _) = state.addLayer { $0 += 1 }
    let version = state.version
    let (sent, sentVersion) = state.valueToCommit(layer: id)
    let (next, settled) = state.confirm(layer: id, sent: sent, version: sentVersion)
    #expect(next == nil)
    #expect(state.version == version + 1)  // the confirmed value changed
    #expect(state.layers == nil)
    #expect(settled.count == 1)
    #expect(state.value == 1)
  }

  @Test func withWatchersTheFirstChangeIsForTheCallerAndLaterOnesWait() {
    var state = watched(1)
    let first = update(&state) { $0 += 1 }.batch
    #expect(first?.change.old == 1)
    #expect(first?.change.new == 2)
    #expect(first?.recipients.count == 1)
    #expect(state.isDelivering)
    #expect(update(&state) { $0 += 1 }.batch == nil)  // someone is delivering
    #expect(update(&state) { $0 += 1 }.batch == nil)
    #expect(state.takeWaiting().map(\.change.new) == [3, 4])
    #expect(state.isDelivering)  // it still has to deliver them
    #expect(state.takeWaiting().isEmpty)
    #expect(!state.isDelivering)
    #expect(update(&state) { $0 += 1 }.batch?.change.new == 5)
  }

  @Test func everySequenceOfStepsDeliversEachChangeOnceInOrderWithOneDeliverer() {
    // All 2^10 sequences of 10 steps (a bit set: the deliverer's `takeWaiting()`; clear: a
    // change from "another thread"); `takeWaiting` is only the deliverer's, so it is skipped
    // while nobody delivers.
    for mask in 0..<(1 << 10) {
      var state = watched(0)
      var delivered: [Int] = []
      var deliverer = false
      for bit in 0..<10 {
        if mask & (1 << bit) == 0 {
          if let batch = update(&state, { $0 += 1 }).batch {
            #expect(!deliverer, "two deliverers at once")
            deliverer = true
            delivered.append(batch.change.new)
          }
        } else if deliverer {
          let batches = state.takeWaiting()
          delivered += batches.map(\.change.new)
          deliverer = !batches.isEmpty
        }
        #expect(state.isDelivering == deliverer)
      }
      while deliverer {
        let batches = state.takeWaiting()
        delivered += batches.map(\.change.new)
        deliverer = !batches.isEmpty
      }
      #expect(delivered == Array(1..<state.value + 1), "mask \(mask)")
      #expect(state.waiting.isEmpty)
    }
  }

  @Test func anInitialChangeOfADirectWatcherIsABatchOfItsOwn() {
    var state = AtomState("now")
    let early = Watcher<String> { _ in }
    let late = Watcher<String> { _ in }
    _ = state.add(early, includingInitial: false, onMainQueue: false)
    let batch = state.add(late, includingInitial: true, onMainQueue: false).batch
    #expect(batch?.change.isInitial == true)
    #expect(batch?.change.new == "now")
    #expect(batch?.isReported == false)
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

  @Test func takingEverythingOutLeavesNothingThatHoldsUserCode() {
    var state = watched(Owner("value"))
    _ = update(&state) { $0 = Owner("changed") }
    _ = update(&state) { $0 = Owner("waiting") }
    _ = state.addLayer { _ in }
    let taken = state.takeAll()
    #expect(taken.watchers.count == 1)
    #expect(taken.waiting.count == 2)  // the second change and the layer's wait for the deliverer
    #expect(taken.layers?.count == 1)
    #expect(taken.value?.name == "waiting")
    #expect(state.watchers.isEmpty && state.waiting.isEmpty && state.layers == nil)
    #expect(state.stored == nil)
  }
}
