import Testing
@testable import TinyWaiting

/// Every transition of the pure promise state machine, with plain strings as callbacks.
@Suite struct PromiseStateTests {
  typealias State = PromiseState<Int, String>

  @Test func pendingHandsCallbacksOutOnceInRegistrationOrder() throws {
    var state = State()
    #expect(state.result == nil)
    let ids = [registeredID(state.register("a")), registeredID(state.register("b"))]
    #expect(ids == [0, 1])
    #expect(state.waitingCount == 2)
    let callbacks = state.resolve(.success(1))
    #expect(callbacks == ["a", "b"])
    #expect(state.waitingCount == 0)
    #expect(try state.result?.get() == 1)
  }

  @Test func aSecondResolutionChangesNothing() throws {
    var state = State()
    let resolutions = [
      state.resolve(.failure(TestError(1))), state.resolve(.success(2)),
      state.resolve(.failure(TestError(3))),
    ]
    #expect(resolutions == [[], nil, nil])
    #expect(state.result?.testError == TestError(1))
  }

  @Test func registeringAfterResolutionRunsAtOnceAndStoresNothing() {
    var state = State(resolved: .success(5))
    guard case .runNow(let result) = state.register("late") else {
      Issue.record("expected runNow")
      return
    }
    #expect(result.value == 5)
    #expect(state.waitingCount == 0)
    let again = state.resolve(.success(6))
    #expect(again == nil)
  }

  @Test func unregisterTakesBackOnlyWhatIsStillWaiting() {
    var state = State()
    let id = state.makeID()
    let early = state.unregister(id)  // not registered yet
    let registered = registeredID(state.register("a", id: id))
    let other = registeredID(state.register("b"))
    let taken = [state.unregister(id), state.unregister(id)]  // the second finds nothing
    let resolved = state.resolve(.success(1))
    let late = state.unregister(other!)  // handed out by resolve
    #expect(early == nil)
    #expect(registered == id)
    #expect(taken == ["a", nil])
    #expect(resolved == ["b"])
    #expect(late == nil)
  }

  @Test func identifiersAreNeverReused() {
    var state = State()
    let reserved = state.makeID()
    let registered = registeredID(state.register("a"))
    let next = state.makeID()
    #expect(reserved == 0)
    #expect(registered == 1)
    #expect(next == 2)
  }

  private func registeredID(_ registration: State.Registration) -> UInt64? {
    if case .waiting(let id) = registration { return id }
    return nil
  }
}
