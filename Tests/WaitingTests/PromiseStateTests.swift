import Testing
import TinyTestSupport
@testable import TinyWaiting

/// Every transition of the pure promise state machine, with plain strings as callbacks.
@Suite struct PromiseStateTests {
  typealias State = PromiseState<String>

  @Test func pendingHandsCallbacksOutOnceInRegistrationOrder() {
    var state = State()
    let registered = [state.register("a"), state.register("b")]
    #expect(registered == [true, true])
    #expect(!state.isResolved)
    #expect(state.waitingCount == 2)
    let callbacks = state.resolve(.fulfilled)
    #expect(callbacks == ["a", "b"])
    #expect(state.waitingCount == 0)
    #expect(state.isResolved)
  }

  @Test func aSecondResolutionChangesNothing() {
    var state = State()
    let resolutions = [
      state.resolve(.rejected(TestError(1))), state.resolve(.fulfilled),
      state.resolve(.rejected(TestError(3))),
    ]
    #expect(resolutions == [[], nil, nil])
    guard case .rejected(let error) = state.phase else {
      Issue.record("expected the first rejection to stay")
      return
    }
    #expect(error as? TestError == TestError(1))
  }

  @Test func resolvingToPendingChangesNothing() {
    var state = State()
    _ = state.register("a")
    let callbacks = state.resolve(.pending)
    #expect(callbacks == nil)
    #expect(!state.isResolved)
    #expect(state.waitingCount == 1)
  }

  @Test(arguments: [State.Phase.fulfilled, .rejected(TestError(2))])
  func registeringAfterResolutionStoresNothing(phase: State.Phase) {
    var state = State(phase)
    let registered = state.register("late")
    let again = state.resolve(.fulfilled)
    #expect(!registered)
    #expect(state.waitingCount == 0)
    #expect(again == nil)
  }

  @Test func unregisterTakesBackOnlyWhatIsStillWaiting() {
    var state = State()
    let id = state.makeID()
    let early = state.unregister(id)  // not registered yet
    let registered = state.register("a", id: id)
    let other = state.makeID()
    _ = state.register("b", id: other)
    let taken = [state.unregister(id), state.unregister(id)]  // the second finds nothing
    let resolved = state.resolve(.fulfilled)
    let late = state.unregister(other)  // handed out by resolve
    #expect(early == nil)
    #expect(registered)
    #expect(taken == ["a", nil])
    #expect(resolved == ["b"])
    #expect(late == nil)
  }

  @Test func identifiersAreNeverReused() {
    var state = State()
    let reserved = state.makeID()
    _ = state.register("a")  // takes identifier 1
    let next = state.makeID()
    #expect(reserved == 0)
    #expect(next == 2)
  }
}
