import Foundation
import Observation
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
final class Session: @unchecked Sendable {  // safe here: each test writes from one thread at a time
  var status = "signed out"
  var profile = Profile()
}

struct Profile {
  var name = ""
}

/// A hand-written `Observable` model whose writes pause at a chosen point: between the report
/// and the store, as the `@Observable` macro's setter does them, or after the store and before
/// the report, as an atom does them.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class PausingModel: Observable, Sendable {
  private let registrar = ObservationRegistrar()
  private let stored = Locked("before")

  var value: String {
    registrar.access(self, keyPath: \.value)
    return stored.withLock { $0 }
  }

  /// Writes `new`, reporting it before it is stored (`reportFirst`) or after, and calls `pause`
  /// between the two.
  func write(_ new: String, reportFirst: Bool, pause: () -> Void) {
    if reportFirst {
      registrar.withMutation(of: self, keyPath: \.value) {
        pause()
        stored.withLock { $0 = new }
      }
    } else {
      stored.withLock { $0 = new }
      pause()
      registrar.withMutation(of: self, keyPath: \.value) {}
    }
  }
}

/// A hand-written `Observable` model that any thread may write: its value sits behind a lock,
/// and a write reports before it stores, as the `@Observable` macro's setter does.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class SharedModel: Observable, Sendable {
  private let registrar = ObservationRegistrar()
  private let stored = Locked(0)

  var value: Int {
    registrar.access(self, keyPath: \.value)
    return stored.withLock { $0 }
  }

  func write(_ new: Int) {
    registrar.withMutation(of: self, keyPath: \.value) { stored.withLock { $0 = new } }
  }
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) @MainActor struct ObservationGroupObservableTests {
  /// A new session, and a begun group that records every change of its status.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  private func observingStatus() -> (
    Session, ObservationGroup, Recorder<AtomChange<String>>, ObservationID
  ) {
    let session = Session()
    let group = ObservationGroup()
    let changes = Recorder<AtomChange<String>>()
    let id = group.observe(session, \.status) { changes.record($0) }
    group.begin()
    return (session, group, changes, id)
  }

  /// The registrations the observation `id` armed in the model so far, and the main-queue hops
  /// they queued.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  private func counts(
    _ group: ObservationGroup, _ id: ObservationID
  ) -> (registrations: Int, hops: Int)? {
    let member = group.member(id) as? ObservableMember<Session, String>
    return member?.tracking.state.withLock { ($0.registrations, $0.hops) }
  }

  @Test func deliversTheInitialValueThenEachChangeAfterItWasStored() async throws {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, _) = observingStatus()
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
    let (session, group, changes, _) = observingStatus()
    session.status = "a"
    session.status = "b"
    session.status = "c"
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "c"])
    #expect(changes.all.last?.old == "signed out")
    group.end()
  }

  @Test func aNestedKeyPathIsTrackedAndDeliveredOnTheMainQueue() async {
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
    session.profile.name = "Ada"
    await mainQueueTurn()
    #expect(names == ["", "Ada"])
    #expect(onMain == [true, true])
    group.end()
  }

  @Test func writesOffTheMainQueueAreDeliveredOnItWithTheFinalValue() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, _) = observingStatus()
    var onMain: [Bool] = []
    group.observe(session, \.status) { _ in onMain.append(MainQueue.isCurrent) }
    // This test holds the main queue while another thread writes, so the hop reads after the
    // last write was stored.
    onNewThreadBlocking {
      session.status = "a"
      session.status = "written elsewhere"
    }
    #expect(changes.count == 1)
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "written elsewhere"])
    #expect(changes.all.last?.old == "signed out")
    #expect(onMain == [true, true])
    group.end()
  }

  @Test func aChangeReportedAfterItIsStoredDeliversTheFinalValueWhateverTheThread() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = PausingModel()
    let group = ObservationGroup()
    var seen: [String] = []
    group.observe(model, \.value) { seen.append($0.new) }
    group.begin()
    let stored = Gate()
    let reported = Gate()
    let writer = startThread {
      model.write("final", reportFirst: false) {
        stored.open()
        reported.wait()  // the main queue runs meanwhile: nothing was reported yet
      }
    }
    await stored.opened()
    await mainQueueTurn()
    #expect(seen == ["before"])
    reported.open()
    await writer.opened()
    await mainQueueTurn()
    #expect(seen == ["before", "final"])
    group.end()
  }

  @Test func aChangeReportedBeforeItIsStoredOffTheMainQueueDeliversWhatTheMainQueueRead() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = PausingModel()
    let group = ObservationGroup()
    var seen: [String] = []
    group.observe(model, \.value) { seen.append($0.new) }
    group.begin()
    let reported = Gate()
    let store = Gate()
    let writer = startThread {
      model.write("final", reportFirst: true) {
        reported.open()
        store.wait()  // the hop runs meanwhile, and reads before the store
      }
    }
    await reported.opened()
    await mainQueueTurn()
    #expect(seen == ["before", "before"])  // delivered what the main queue read; no trap
    store.open()
    await writer.opened()
    await mainQueueTurn()
    #expect(seen == ["before", "before"])  // the store itself reports nothing more
    group.end()
    group.begin()  // a new run reads the stored value
    #expect(seen == ["before", "before", "final"])
    model.write("next", reportFirst: true) {}  // and the next change is tracked
    await mainQueueTurn()
    #expect(seen == ["before", "before", "final", "next"])
    group.end()
  }

  @Test func anAtomReadThroughTheKeyPathAndObservedDirectlyDeliversEachChangeOnceInOrder() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = CounterModel()
    let group = ObservationGroup()
    var throughModel: [AtomChange<Int>] = []
    var direct: [AtomChange<Int>] = []
    let id = group.observe(model, \.count.value) { throughModel.append($0) }
    group.observe(model.count) { direct.append($0) }
    group.begin()
    model.count.set(1)  // on the main queue: the direct watch delivers at once
    #expect(direct.map(\.new) == [0, 1])
    await mainQueueTurn()  // the key path's hop
    model.count.set(2)
    model.count.set(3)  // before the hop: the key path delivers the two as one
    await mainQueueTurn()
    #expect(direct.map(\.new) == [0, 1, 2, 3])
    #expect(direct.dropFirst().map(\.old) == [0, 1, 2])
    #expect(throughModel.map(\.new) == [0, 1, 3])
    #expect(throughModel.dropFirst().map(\.old) == [0, 1])
    let member = group.member(id) as? ObservableMember<CounterModel, Int>
    #expect(member?.tracking.state.withLock { $0.hops } == 2)  // one hop per report: nothing twice
    group.end()
    model.count.set(4)
    await mainQueueTurn()
    #expect(direct.count == 4)
    #expect(throughModel.count == 3)
  }

  @Test func anAtomReadThroughTheKeyPathChangedOffTheMainQueueDeliversItsFinalValue() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = CounterModel()
    let group = ObservationGroup()
    var seen: [Int] = []
    group.observe(model, \.count.value) { seen.append($0.new) }
    group.begin()
    let firstSet = Gate()
    let more = Gate()
    let writer = startThread {
      model.count.set(1)  // reported after it is stored, and after set returns: the hop is queued
      firstSet.open()
      more.wait()
      model.count.set(2)
      model.count.set(3)
    }
    await firstSet.opened()
    await mainQueueTurn()
    #expect(seen == [0, 1])
    more.open()
    await writer.opened()
    await mainQueueTurn()
    #expect(seen.last == 3)
    group.end()
  }

  @Test func aChangeOffTheMainQueueWhileTheGroupIsInactiveIsFineAndSeenAtBegin() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, id) = observingStatus()
    group.end()
    await onNewThread { session.status = "written elsewhere" }  // fires the armed registration
    #expect(counts(group, id)?.hops == 0)  // stopped: it queued nothing
    group.begin()
    #expect(changes.all.map(\.new) == ["signed out", "written elsewhere"])
    #expect(counts(group, id)?.registrations == 2)  // the fired one was replaced
    session.status = "back on main"
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "written elsewhere", "back on main"])
    group.end()
  }

  @Test func nothingIsDeliveredAfterEndEvenWhenTheHopWasQueued() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, _) = observingStatus()
    session.status = "queued"  // the hop is on its way…
    group.end()  // …and finds the group ended
    await mainQueueTurn()
    session.status = "after end"
    await mainQueueTurn()
    #expect(changes.count == 1)  // the initial value only
    group.begin()  // a new run: the current value, tracked afresh
    #expect(changes.all.map(\.new) == ["signed out", "after end"])
    session.status = "tracked again"
    await mainQueueTurn()
    #expect(changes.all.map(\.new) == ["signed out", "after end", "tracked again"])
    group.end()
  }

  @Test func beginAndEndCyclesKeepOneRegistrationAndAWriteQueuesOneHop() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, id) = observingStatus()
    for _ in 0..<100_000 {
      group.end()
      group.begin()
    }
    #expect(counts(group, id)?.registrations == 1)  // re-used by every cycle
    #expect(changes.count == 100_001)  // every begin delivered the initial value
    session.status = "once"
    #expect(counts(group, id)?.hops == 1)  // one registration fired, one hop queued
    await mainQueueTurn()
    #expect(changes.all.suffix(2).map(\.new) == ["signed out", "once"])
    #expect(changes.all.last?.isInitial == false)
    #expect(counts(group, id)?.registrations == 2)  // armed again by the delivery
    group.end()
  }

  @Test func aRegistrationThatFiresAfterEndDoesNothingAndBeginArmsAFreshOne() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, id) = observingStatus()
    group.end()
    session.status = "while ended"  // fires the registration armed by the first begin
    #expect(counts(group, id)?.hops == 0)
    await mainQueueTurn()
    #expect(changes.count == 1)
    group.begin()
    #expect(changes.all.last?.new == "while ended")
    #expect(counts(group, id)?.registrations == 2)
    group.end()
    group.begin()  // nothing was written: the armed registration is re-used
    #expect(counts(group, id)?.registrations == 2)
    session.status = "seen"
    await mainQueueTurn()
    #expect(changes.all.last?.new == "seen")
    #expect(changes.all.last?.old == "while ended")
    group.end()
  }

  @Test func aRemovedObservationsRegistrationFiresOnceAndDoesNothing() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let (session, group, changes, id) = observingStatus()
    let member = group.member(id) as? ObservableMember<Session, String>
    group.remove(id)
    session.status = "after remove"
    #expect(member?.tracking.state.withLock { $0.hops } == 0)
    await mainQueueTurn()
    #expect(changes.count == 1)
    #expect(group.count == 0)
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

  /// 8 threads write while the group re-arms its registration `rearms` times: each
  /// registration runs the handler at most once, however often the toolchain fires it, and the
  /// group keeps up (a livelock would time out). `write` makes one write of writer `index`.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  private func eightWritersWhileTheGroupRearms<Model: Observable & AnyObject & Sendable>(
    _ model: Model, _ keyPath: KeyPath<Model, Int>,
    write: @escaping @Sendable (Model, Int) -> Void
  ) async {
    let rearms = stressVolume(full: 3_000, quick: 300)
    let group = ObservationGroup()
    let reached = Gate()
    var changes = 0
    let id = group.observe(model, keyPath) { change in
      if !change.isInitial { changes += 1 }
      if changes == rearms { reached.open() }
    }
    group.begin()
    let done = Locked(false)
    let writers = (0..<8).map { index in
      startThread {
        var next = index
        while !done.withLock({ $0 }) {
          write(model, next)
          next += 8
          sched_yield()  // lets the main queue's hops through on two cores
        }
      }
    }
    await reached.opened()
    done.withLock { $0 = true }
    for writer in writers { await writer.opened() }
    group.end()
    let member = group.member(id) as? ObservableMember<Model, Int>
    let counts = member?.tracking.state.withLock {
      (registrations: $0.registrations, hops: $0.hops)
    }
    // One hop per registration that fired, one handler call per hop: none ran twice.
    #expect(changes >= rearms)
    #expect(counts.map { $0.hops <= $0.registrations } == true)
    #expect(counts?.hops == changes)
  }

  @Test func eightWritersOfAPlainObservablePropertyRunTheHandlerOncePerRegistration() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    await eightWritersWhileTheGroupRearms(SharedModel(), \.value) { model, value in
      model.write(value)
    }
  }

  @Test func eightWritersOfAnAtomReadThroughTheKeyPathRunTheHandlerOncePerRegistration() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    await eightWritersWhileTheGroupRearms(CounterModel(), \.count.value) { model, value in
      model.count.set(value)
    }
  }

  @Test func aRegistrationCountsOnceHoweverOftenItFiresAndOnlyWhileItIsTheArmedOne() {
    var tracking = ObservableTracking()
    #expect(tracking.start() == false)  // nothing armed yet: the member reads and arms
    let first = tracking.arm()
    #expect(tracking.fired(first) == true)  // queues the hop
    #expect(tracking.fired(first) == false)  // the toolchain fires it again: nothing more
    #expect(tracking.hopped() == true)  // the hop reads and arms again
    let second = tracking.arm()
    #expect(tracking.fired(first) == false)  // the old one fires once more: still nothing
    #expect(tracking.fired(second) == true)
    #expect(tracking.registrations == 2)
    #expect(tracking.hops == 2)
  }

  @Test func firesWhileAHopIsQueuedFoldIntoIt() {
    var tracking = ObservableTracking()
    _ = tracking.start()
    let first = tracking.arm()
    #expect(tracking.fired(first) == true)
    // The member stopped and started again before the hop ran, and armed a new registration.
    tracking.isRunning = false
    #expect(tracking.start() == false)
    let second = tracking.arm()
    // A hop is queued: it reads the value after this change.
    #expect(tracking.fired(second) == false)
    #expect(tracking.hopped() == true)  // and it arms again, since the fire disarmed the second one
    #expect(tracking.hops == 1)
  }

  @Test func aHopFindingARegistrationArmedNeitherReadsNorArms() {
    var tracking = ObservableTracking()
    _ = tracking.start()
    #expect(tracking.fired(tracking.arm()) == true)
    tracking.isRunning = false
    _ = tracking.start()
    _ = tracking.arm()  // begin() armed one and read the value after the fire
    #expect(tracking.hopped() == false)
  }

  @Test func aFireWhileStoppedQueuesNothingAndTheNextStartArms() {
    var tracking = ObservableTracking()
    _ = tracking.start()
    let first = tracking.arm()
    tracking.isRunning = false
    #expect(tracking.fired(first) == false)
    #expect(tracking.start() == false)  // it fired: nothing is armed
    #expect(tracking.hops == 0)
  }
}
