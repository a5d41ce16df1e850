import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite struct AtomStateTests {
  @Test func withoutWatchersAnUpdateRecordsNoChange() {
    var state = AtomState(1)
    let result = state.update {
      $0 += 1; return true
    }
    #expect(result.value == 2)
    #expect(result.batch == nil)
    #expect(!state.delivery.isDelivering)
  }

  @Test func withWatchersTheFirstChangeIsForTheCallerAndLaterOnesQueue() {
    var state = AtomState(1)
    let watcher = Watcher<Int> { _ in }
    _ = state.add(watcher, includingInitial: false, onMainQueue: false)
    let first = state.update {
      $0 += 1; return true
    }.batch
    #expect(first?.change.old == 1)
    #expect(first?.change.new == 2)
    #expect(first?.recipients.count == 1)
    #expect(
      state.update {
        $0 += 1; return true
      }.batch == nil)  // someone is delivering
    #expect(state.nextBatch()?.change.new == 3)
    #expect(state.nextBatch() == nil)
    #expect(!state.delivery.isDelivering)
  }

  @Test func aDeclinedUpdateChangesNothing() {
    var state = AtomState("a")
    _ = state.add(Watcher { _ in }, includingInitial: false, onMainQueue: false)
    let result = state.update { (value: inout String) -> Bool in false }
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
