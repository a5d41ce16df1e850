import Testing
import TinyTestSupport
@testable import TinyWaiting

/// Every transition of the pure promise state machine, with plain strings as callbacks.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PromiseStateTests {
  typealias State = PromiseState<String>

  /// A stamp source that counts its calls.
  private final class Stamps {
    var next: UInt64 = 41
    var calls = 0
    func take() -> UInt64 {
      calls += 1
      next += 1
      return next
    }
  }

  @Test func pendingHandsCallbacksOutOnceInRegistrationOrder() {
    var state = State()
    let stamps = Stamps()
    let registered = [state.register("a"), state.register("b")]
    #expect(registered == [.waiting, .waiting])
    #expect(!state.isResolved)
    #expect(state.stamp == 0)
    #expect(state.waiting.count == 2)
    let delivery = state.resolve(with: .fulfilled(1), stamp: stamps.take)
    #expect(delivery?.callbacks.map(\.callback) == ["a", "b"])
    #expect(delivery?.lastQueued == nil)
    #expect(state.waiting.count == 0)
    #expect(state.isResolved)
    #expect(state.stamp == 42)
    #expect(!state.isDelivering)
  }

  @Test func aSecondResolutionChangesNothingAndTakesNoStamp() {
    var state = State()
    let stamps = Stamps()
    let resolutions = [
      state.resolve(with: .rejected(TestError(1)), stamp: stamps.take),
      state.resolve(with: .fulfilled(1), stamp: stamps.take),
      state.resolve(with: .rejected(TestError(3)), stamp: stamps.take),
    ]
    #expect(resolutions.map { $0 == nil } == [false, true, true])
    #expect(stamps.calls == 1)
    #expect(state.stamp == 42)
    guard case .rejected(let error) = state.resolution else {
      Issue.record("expected the first rejection to stay")
      return
    }
    #expect(error as? TestError == TestError(1))
  }

  @Test(arguments: [Resolution.fulfilled(1), .rejected(TestError(2))])
  func registeringAfterResolutionStoresNothing(resolution: Resolution) {
    var state = State(resolvedWith: resolution, stamp: 7)
    let registered = state.register("late")
    let again = state.resolve(with: .fulfilled(1)) { 99 }
    #expect(registered == .runNow)
    #expect(state.waiting.count == 0)
    #expect(again == nil)
    #expect(state.stamp == 7)
  }

  @Test func unregisterTakesBackOnlyWhatIsStillWaiting() {
    var state = State()
    let id = state.makeID()
    let early = state.unregister(id)  // not registered yet
    let registered = state.register("a", id: id)
    let other = state.makeID()
    _ = state.register("b", id: other)
    let taken = [state.unregister(id), state.unregister(id)]  // the second finds nothing
    let resolved = state.resolve(with: .fulfilled(1)) { 1 }
    let late = state.unregister(other)  // handed out by resolve
    #expect(early == nil)
    #expect(registered == .waiting)
    #expect(taken == ["a", nil])
    #expect(resolved?.callbacks.map(\.callback) == ["b"])
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

  @Test func theResolutionSaysAfterWhichCallbackQueuedOnesMayBeDelivered() {
    var state = State()
    _ = state.register("plain 1")
    _ = state.register("queued 1", queued: true)
    _ = state.register("plain 2")
    _ = state.register("queued 2", queued: true)
    _ = state.register("plain 3")
    let delivery = state.resolve(with: .fulfilled(1)) { 1 }
    #expect(delivery?.lastQueued == 3)
    #expect(state.isDelivering)
  }

  @Test func queuedCallbacksRegisteredWhileDeliveringWaitInLine() {
    var state = State()
    _ = state.register("queued A", queued: true)
    _ = state.resolve(with: .fulfilled(1)) { 1 }
    // The resolver has not sent A yet: B and C wait, plain callbacks run at once.
    #expect(state.register("queued B", queued: true) == .deferred)
    #expect(state.register("plain", queued: false) == .runNow)
    #expect(state.register("queued C", queued: true) == .deferred)
    // The resolver sent A: it takes B and C, then finds nothing and stops delivering.
    #expect(state.takeDeferred().map(\.callback) == ["queued B", "queued C"])
    #expect(state.isDelivering)
    #expect(state.takeDeferred().isEmpty)
    #expect(!state.isDelivering)
    // The next queued registration delivers: it is first in line, and others wait behind it.
    #expect(state.register("queued D", queued: true) == .deliverNow)
    #expect(state.register("queued E", queued: true) == .deferred)
    #expect(state.takeDeferred().map(\.callback) == ["queued D", "queued E"])
    #expect(state.takeDeferred().isEmpty)
    #expect(!state.isDelivering)
  }

  @Test func withoutQueuedCallbacksNobodyDelivers() {
    var state = State()
    _ = state.register("plain")
    _ = state.resolve(with: .rejected(TestError())) { 1 }
    #expect(!state.isDelivering)
    #expect(state.register("queued", queued: true) == .deliverNow)
    #expect(state.takeDeferred().map(\.callback) == ["queued"])
    #expect(state.takeDeferred().isEmpty)
    #expect(!state.isDelivering)
  }

  @Test(
    "taking back a callback keeps the hand-over point at or after the last queued one",
    arguments: [
      (0, 1), (1, 1), (2, 1), (3, 2),
    ] as [(Int, Int?)])
  func unregisterMovesTheHandOverPoint(removed: Int, lastQueued: Int?) {
    var state = State()
    let ids = (0..<4).map { _ in state.makeID() }
    _ = state.register("plain 0", id: ids[0])
    _ = state.register("plain 1", id: ids[1])
    _ = state.register("queued 2", id: ids[2], queued: true)
    _ = state.register("plain 3", id: ids[3])
    _ = state.unregister(ids[removed])
    #expect(state.resolve(with: .fulfilled(1)) { 1 }?.lastQueued == lastQueued)
  }

  @Test func takingBackTheOnlyQueuedCallbackLeavesNoHandOverPoint() {
    var state = State()
    let id = state.makeID()
    _ = state.register("queued", id: id, queued: true)
    _ = state.register("plain")
    _ = state.unregister(id)
    let delivery = state.resolve(with: .fulfilled(1)) { 1 }
    #expect(delivery?.lastQueued == nil)
    #expect(!state.isDelivering)
  }

  @Test func aPendingStateGivesUpEveryCallbackWhenItGoesAway() {
    var state = State()
    _ = state.register("a")
    _ = state.register("b", queued: true)
    #expect(state.takeAll().waiting.map(\.callback) == ["a", "b"])
    #expect(state.waiting.count == 0)
    #expect(state.resolve(with: .fulfilled(1)) { 1 }?.lastQueued == nil)
  }
}
