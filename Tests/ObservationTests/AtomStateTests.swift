import Testing
import TinyTestSupport

@testable import TinyObservation

/// The atom's state machine, driven as a script: what each transition stores, what it hands back
/// to deliver, and what it hands back to release after unlocking.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomStateTests {
  /// What an update that cannot throw hands back.
  struct Step<Value: Sendable> {
    var value: Value?
    var batch: Batch<Value>?
    var replaced: Value?
  }

  /// Runs `body` on `state` as an update that cannot throw.
  func update<Value>(
    _ state: inout AtomState<Value>, _ body: (inout Value) -> Void
  ) -> Step<Value> {
    var step = Step<Value>()
    step.value = state.update(body, &step.batch, &step.replaced)
    return step
  }

  /// A state with one watch that does nothing.
  func watched<Value>(_ value: Value) -> AtomState<Value> {
    var state = AtomState(value, tracked: Flag())
    _ = state.add(Recipient { _ in }, includingInitial: false, onMainQueue: false)
    return state
  }

  @Test func withoutWatchersOrReadsAnUpdateRecordsNoChange() {
    var state = AtomState(1, tracked: Flag())
    let step = update(&state) { $0 += 1 }
    #expect(step.value == 2)
    #expect(step.batch == nil)
    #expect(!state.isDelivering)
  }

  @Test func withoutWatchersTheReplacedValueIsHandedBackToReleaseAfterUnlocking() {
    var state = AtomState(Owner("old"), tracked: Flag())
    let step = update(&state) { $0 = Owner("new") }
    #expect(step.value?.name == "new")
    #expect(step.replaced?.name == "old")
  }

  @Test func aThrowingBodyHandsBackWhatItLeftBehindAndChangesNothing() {
    var state = AtomState([Owner("kept")], tracked: Flag())
    var batch: Batch<[Owner]>?
    var replaced: [Owner]?
    #expect(throws: Oops(code: 1)) {
      try state.update(
        { (value: inout [Owner]) throws(Oops) in
          value.append(Owner("left behind"))
          throw Oops(code: 1)
        }, &batch, &replaced)
    }
    #expect(state.value.map(\.name) == ["kept"])
    #expect(replaced?.map(\.name) == ["kept", "left behind"])
    #expect(batch == nil)
    #expect(state.version == 0)
  }

  @Test func withWatchersTheOldValueTravelsWithTheChange() {
    var state = watched(Owner("old"))
    let step = update(&state) { $0 = Owner("new") }
    #expect(step.batch?.change.old.name == "old")
    #expect(step.batch?.isReported == false)
    #expect(step.replaced == nil)
  }

  @Test func aTrackedValueReportsTheNextChangeEvenWithoutWatchers() {
    let tracked = Flag()
    var state = AtomState(0, tracked: tracked)
    #expect(update(&state) { $0 = 1 }.batch == nil)
    tracked.raise()  // Observation tracked a read, or stored a registration
    let step = update(&state) { $0 = 2 }
    #expect(step.batch?.isReported == true)
    #expect(step.batch?.recipients.isEmpty == true)
    #expect(step.batch?.change.old == 1)
    #expect(!tracked.isRaised)  // lowered before the report: a later registration raises it
    #expect(state.endRound() == nil)
    #expect(update(&state) { $0 = 3 }.batch == nil)  // nobody tracks it now
  }

  @Test func underLayersThePlainUpdateStepsAsideForTheOptimisticPath() {
    var state = AtomState("confirmed", tracked: Flag())
    var added = Outcome<String>()
    _ = state.addLayer({ $0 += "+layer" }, &added)
    #expect(added.replaced == "confirmed")  // the visible value the layer replaced
    var ran = false
    let step = update(&state) { _ in ran = true }
    #expect(step.value == nil)
    #expect(!ran)
    var outcome = Outcome<String>()
    let value = state.update(confirming: { $0 = "pushed" }, error: nil, &outcome)
    #expect(value == "pushed+layer")
    #expect(outcome.replacedUnderLayers == ["confirmed"])
    #expect(outcome.replaced == "confirmed+layer")
    #expect(state.confirmedValue == "pushed")
  }

  @Test func everyChangeMovesTheVersion() {
    var state = AtomState(0, tracked: Flag())
    _ = update(&state) { _ in }
    #expect(state.version == 1)
    _ = state.add(Recipient { _ in }, includingInitial: false, onMainQueue: false)
    _ = update(&state) { _ in }
    #expect(state.version == 2)
  }

  @Test func confirmingACommitMovesTheVersionAndHandsTheSettledLayersBack() {
    var state = AtomState(0, tracked: Flag())
    var outcome = Outcome<Int>()
    let (id, _) = state.addLayer({ $0 += 1 }, &outcome)
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
    #expect(state.endRound()?.map(\.change.new) == [3, 4])
    #expect(state.isDelivering)  // it still has to deliver them
    #expect(state.endRound() == nil)
    #expect(!state.isDelivering)
    #expect(update(&state) { $0 += 1 }.batch?.change.new == 5)
  }

  @Test func everySequenceOfStepsDeliversEachChangeOnceInOrderWithOneDeliverer() {
    // All 2^10 sequences of 10 steps (a bit set: the deliverer's `endRound()`; clear: a
    // change from "another thread"); `endRound` is only the deliverer's, so it is skipped
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
          let batches = state.endRound()
          delivered += batches?.map(\.change.new) ?? []
          deliverer = batches != nil
        }
        #expect(state.isDelivering == deliverer)
      }
      while deliverer {
        let batches = state.endRound()
        delivered += batches?.map(\.change.new) ?? []
        deliverer = batches != nil
      }
      #expect(delivered == Array(1..<state.value + 1), "mask \(mask)")
      #expect(state.waiting.isEmpty)
    }
  }

  @Test func anInitialChangeOfADirectWatchIsABatchOfItsOwn() {
    var state = AtomState("now", tracked: Flag())
    let early = Recipient<String> { _ in }
    let late = Recipient<String> { _ in }
    _ = state.add(early, includingInitial: false, onMainQueue: false)
    let batch = state.add(late, includingInitial: true, onMainQueue: false).batch
    #expect(batch?.change.isInitial == true)
    #expect(batch?.change.new == "now")
    #expect(batch?.isReported == false)
    #expect(batch?.recipients.map { ObjectIdentifier($0.flag) } == [ObjectIdentifier(late.flag)])
  }

  @Test func removingAWatchByItsFlag() {
    var state = AtomState(0, tracked: Flag())
    let recipient = Recipient<Int> { _ in }
    _ = state.add(recipient, includingInitial: false, onMainQueue: false)
    #expect(state.remove(recipient.flag)?.flag === recipient.flag)
    #expect(state.remove(recipient.flag) == nil)
    #expect(state.recipients.isEmpty)
  }

  @Test func aWatchStoppedAfterAChangeTookEffectIsNotCalledWithIt() {
    let atom = Atom(0)
    let seen = Recorder<Int>()
    let token = atom.watch { seen.record($0.new) }
    var batch: Batch<Int>?
    var replaced: Int?
    _ = atom.state.withLock { $0.update({ $0 = 1 }, &batch, &replaced) }
    #expect(batch?.recipients.count == 1)  // the change goes to the watch
    token.cancel()
    atom.send(batch!)
    #expect(seen.all.isEmpty)
  }

  @Test func takingEverythingOutLeavesNothingThatHoldsUserCode() {
    var state = watched(Owner("value"))
    _ = update(&state) { $0 = Owner("changed") }
    _ = update(&state) { $0 = Owner("waiting") }
    var outcome = Outcome<Owner>()
    _ = state.addLayer({ _ in }, &outcome)
    let (recipients, waiting, layers, value) = state.takeAll()
    #expect(recipients.count == 1)
    #expect(waiting.count == 2)  // the second change and the layer's wait for the deliverer
    #expect(layers?.count == 1)
    #expect(value?.name == "waiting")
    #expect(state.recipients.isEmpty && state.waiting.isEmpty && state.layers == nil)
    #expect(state.stored == nil)
  }
}

extension AtomState {
  /// The deliverer after a round, as `Atom.deliverWaiting()` does it: `nil` when its turn ended
  /// (nothing waited), or what waits, taken with the turn kept.
  mutating func endRound() -> [Batch<Value>]? {
    turn.endUnlessWaiting() ? nil : takeWaiting()
  }

  /// Whether a thread is delivering.
  var isDelivering: Bool { turn.isTaken }
}
