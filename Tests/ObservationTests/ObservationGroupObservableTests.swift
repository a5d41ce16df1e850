import Observation
import Testing
import TinyTestSupport

@testable import TinyObservation

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
final class Session: @unchecked Sendable {  // safe here: each test writes from one thread at a time
  var status = "signed out"
  var profile = Profile()
}

struct Profile {
  var name = ""
}

@Suite @MainActor struct ObservationGroupObservableTests {
  /// A new session, and a begun group that records every change of its status.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  private func observingStatus() -> (Session, ObservationGroup, Recorder<AtomChange<String>>) {
    let session = Session()
    let group = ObservationGroup()
    let changes = Recorder<AtomChange<String>>()
    group.observe(session, \.status) { changes.record($0) }
    group.begin()
    return (session, group, changes)
  }

  @Test func deliversTheInitialValueThenEachChangeAfterItWasStored() async throws {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes) = observingStatus()
    #expect(changes.all.map(\.new) == ["signed out"])
    #expect(changes.all.map(\.isInitial) == [true])
    session.status = "signing in"
    #expect(changes.count == 1)  // always after a hop to the main queue
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "signing in"])
    #expect(changes.all.last?.old == "signed out")
    #expect(changes.all.last?.isInitial == false)
    session.status = "signed in"  // tracking was armed again
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "signing in", "signed in"])
    group.end()
  }

  @Test func changesBeforeTheHopArriveAsOneWithTheLatestValue() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes) = observingStatus()
    session.status = "a"
    session.status = "b"
    session.status = "c"
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "c"])
    #expect(changes.all.last?.old == "signed out")
    group.end()
  }

  @Test func changesMadeOffTheMainQueueAreDeliveredOnIt() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let session = Session()
    let group = ObservationGroup()
    var names: [String] = []
    var onMain: [Bool] = []
    group.observe(session, \.profile.name) { change in
      names.append(change.new)
      onMain.append(MainQueue.isCurrent)
    }
    group.begin()
    startThread { session.profile.name = "Ada" }.wait()
    await mainQueueTurn()
    #expect(names == ["", "Ada"])
    #expect(onMain == [true, true])
    group.end()
  }

  @Test func nothingIsDeliveredAfterEndEvenWhenTheHopWasQueued() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes) = observingStatus()
    session.status = "queued"  // the hop is on its way…
    group.end()  // …and finds the group ended
    await mainQueueTurn()
    session.status = "after end"
    await mainQueueTurn()
    #expect(changes.count == 1)  // the initial value only
    group.begin()  // a new run: the current value, tracked afresh
    #expect(changes.count == 2)
    group.end()
  }

  @Test func theGroupIsReleasedWithItsModel() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    weak var weakGroup: ObservationGroup?
    weak var weakSession: Session?
    do {
      let session = Session()
      let group = ObservationGroup()
      weakGroup = group
      weakSession = session
      group.observe(session, \.status) { _ in }
      group.begin()
    }
    #expect(weakGroup == nil)
    #expect(weakSession == nil)
  }
}
