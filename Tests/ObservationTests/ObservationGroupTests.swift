import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

@Suite(.timeLimit(suiteTimeLimit), .watchdog) @MainActor struct ObservationGroupTests {
  @Test func beginDeliversEveryInitialValueInOrderBeforeReturning() {
    let name = Atom("Ada")
    let count = Atom(3)
    let group = ObservationGroup()
    var log: [String] = []
    group.observe(name) { log.append("name \($0.new) initial \($0.isInitial)") }
    group.observe(count) { log.append("count \($0.new) initial \($0.isInitial)") }
    #expect(log.isEmpty)  // nothing before begin
    #expect(!group.isActive)
    group.begin()
    #expect(group.isActive)
    #expect(log == ["name Ada initial true", "count 3 initial true"])
    name.set("Bob")
    #expect(log.last == "name Bob initial false")
    group.end()
  }

  @Test func beginAndEndAreIdempotentAndNoHandlerStartsAfterEnd() {
    let name = Atom("")
    let group = ObservationGroup()
    var seen: [String] = []
    group.observe(name) { seen.append($0.new) }
    group.begin()
    group.begin()  // no second initial delivery
    #expect(seen == [""])
    group.end()
    group.end()
    name.set("after end")
    #expect(seen == [""])
    group.begin()  // starts again, with a fresh initial value
    #expect(seen == ["", "after end"])
    group.end()
  }

  @Test func changesMadeOffTheMainQueueAreDeliveredOnItInOrder() async {
    let count = Atom(0)
    let group = ObservationGroup()
    var seen: [Int] = []
    var onMain: [Bool] = []
    group.observe(count) { change in
      seen.append(change.new)
      onMain.append(MainQueue.isCurrent)
    }
    group.begin()
    startThread {
      for _ in 0..<50 { count.update { $0 += 1 } }
    }.wait()
    #expect(seen == [0])
    await mainQueueTurn()
    #expect(seen == Array(0...50))
    #expect(onMain.allSatisfy { $0 })
    group.end()
  }

  @Test func endDropsChangesStillQueuedForTheMainQueue() async {
    let count = Atom(0)
    let group = ObservationGroup()
    var seen: [Int] = []
    group.observe(count) { seen.append($0.new) }
    group.begin()
    startThread { count.set(1) }.wait()
    group.end()
    await mainQueueTurn()
    #expect(seen == [0])
  }

  @Test func endFromInsideAnInitialHandlerStopsTheRest() {
    let a = Atom("a")
    let b = Atom("b")
    let group = ObservationGroup()
    var log: [String] = []
    group.observe(a) { change in
      log.append("a \(change.new)")
      group.end()
    }
    group.observe(b) { log.append("b \($0.new)") }
    group.begin()
    #expect(log == ["a a"])  // b never started
    #expect(!group.isActive)
    a.set("A")
    b.set("B")
    #expect(log == ["a a"])
  }

  @Test func endFromInsideAHandlerStopsChangesQueuedBehindIt() {
    let count = Atom(0)
    let group = ObservationGroup()
    var seen: [Int] = []
    group.observe(count) { change in
      seen.append(change.new)
      if change.new == 1 {
        count.set(2)  // queued behind this change…
        group.end()  // …and dropped
      }
    }
    group.begin()
    count.set(1)
    #expect(seen == [0, 1])
    #expect(count.value == 2)
  }

  @Test func anInitialHandlerThatChangesItsSourceSeesTheChangeRightAfter() {
    let count = Atom(0)
    let group = ObservationGroup()
    var log: [String] = []
    group.observe(count) { change in
      log.append("\(change.isInitial ? "initial" : "change") \(change.new)")
      if change.isInitial { count.set(1) }
    }
    group.begin()
    #expect(log == ["initial 0", "change 1"])
    group.end()
  }

  @Test func anInitialHandlerThatEndsTheGroupThenChangesItsSourceSeesNothingMore() {
    let count = Atom(0)
    let group = ObservationGroup()
    var seen: [Int] = []
    group.observe(count) { change in
      seen.append(change.new)
      if change.isInitial {
        group.end()
        count.set(1)  // reaches the watch before `watchOnMain` returns: its run has ended
      }
    }
    group.begin()
    #expect(seen == [0])
    #expect(count.watcherCount == 0)  // the ended run's watch is not kept
    count.set(2)
    #expect(seen == [0])
  }

  @Test func endAndBeginAgainFromInsideAHandler() {
    let count = Atom(0)
    let group = ObservationGroup()
    var log: [String] = []
    var restarted = false
    group.observe(count) { change in
      log.append("\(change.isInitial ? "initial" : "change") \(change.new)")
      if !restarted && change.new == 1 {
        restarted = true
        group.end()
        group.begin()
      }
    }
    group.begin()
    count.set(1)
    count.set(2)
    #expect(log == ["initial 0", "change 1", "initial 1", "change 2"])
    group.end()
  }

  @Test func observationsAddedOrRemovedWhileActiveStartOrStopOnTheirOwn() {
    let name = Atom("Ada")
    let count = Atom(1)
    let group = ObservationGroup()
    var log: [String] = []
    group.observe(name) { log.append("name \($0.new)") }
    group.begin()
    let id = group.observe(count) { log.append("count \($0.new)") }
    #expect(log == ["name Ada", "count 1"])  // added while active: initial at once
    #expect(group.count == 2)
    group.remove(id)
    group.remove(id)  // unknown now: nothing
    #expect(group.count == 1)
    count.set(2)
    name.set("Bob")
    #expect(log == ["name Ada", "count 1", "name Bob"])
    group.end()
    group.begin()
    #expect(log.last == "name Bob")  // the removed one stays removed
    group.end()
  }

  @Test func aHandlerMayRemoveAnObservationThatHasNotStartedYet() {
    let a = Atom("a")
    let b = Atom("b")
    let group = ObservationGroup()
    var log: [String] = []
    @MainActor final class Later {
      var id: ObservationID?
    }
    let second = Later()
    group.observe(a) { change in
      log.append("a \(change.new)")
      if let id = second.id { group.remove(id) }
    }
    second.id = group.observe(b) { log.append("b \($0.new)") }
    group.begin()
    #expect(log == ["a a"])
    group.end()
  }

  @Test func releasingTheGroupStopsItAndLeaksNothing() {
    let count = Atom(0)
    weak var weakGroup: ObservationGroup?
    weak var weakCaptured: Owner?
    var seen: [Int] = []
    do {
      let group = ObservationGroup()
      let captured = Owner()
      weakGroup = group
      weakCaptured = captured
      group.observe(count) { change in
        _ = captured.name
        seen.append(change.new)
      }
      group.begin()
    }
    #expect(weakGroup == nil)
    #expect(weakCaptured == nil)
    #expect(count.watcherCount == 0)
    count.set(1)
    #expect(seen == [0])
  }

  @Test func aViewControllerWithWeakSelfHandlersIsReleased() {
    @MainActor final class Screen {
      let observations = ObservationGroup()
      var shown = ""

      init(_ name: Atom<String>) {
        observations.observe(name) { [weak self] change in self?.shown = change.new }
        observations.begin()
      }
    }
    let name = Atom("Ada")
    weak var weakScreen: Screen?
    do {
      let screen = Screen(name)
      weakScreen = screen
      name.set("Bob")
      #expect(screen.shown == "Bob")
    }
    #expect(weakScreen == nil)
    #expect(name.watcherCount == 0)
  }

  @Test func anIdentifierOfAnotherGroupRemovesNothing() {
    let name = Atom("")
    let first = ObservationGroup()
    let second = ObservationGroup()
    let firstID = first.observe(name) { _ in }
    let secondID = second.observe(name) { _ in }
    #expect(firstID != secondID)
    second.remove(firstID)
    #expect(second.count == 1)
    first.remove(firstID)
    #expect(first.count == 0)
  }

  @Test(
    "a removed handler's captures may use the group when they are released",
    arguments: [false, true])
  func removedHandlersDeinit(notification: Bool) async {
    let count = Atom(0)
    let other = Atom("other")
    let center = NotificationCenter()
    let group = ObservationGroup()
    let log = Recorder<String>()
    let id: ObservationID
    do {
      let guardian = OnDeinit {
        MainActor.assumeIsolated {
          log.record("deinit")
          group.observe(other) { log.record("\($0.new)") }  // active: delivered at once
          group.end()
        }
      }
      id =
        notification
        ? group.observe(notification: .testPing, center: center) { _ in _ = guardian }
        : group.observe(count) { _ in _ = guardian }
    }
    group.begin()
    group.remove(id)
    #expect(log.all == ["deinit", "other"])
    #expect(!group.isActive)
    #expect(group.count == 1)
  }

  @Test func releasingTheGroupReleasesHandlersWhoseCapturesUseTheirSources() {
    let count = Atom(0)
    do {
      let group = ObservationGroup()
      let guardian = OnDeinit { count.set(count.value + 1) }
      group.observe(count) { _ in _ = guardian }
      group.begin()
    }
    #expect(count.value == 1)
    #expect(count.watcherCount == 0)
  }

  @Test func memberRunsTellStaleDeliveriesApart() {
    final class Member: GroupMember {
      var log: [String] = []
      override func begin() { log.append("begin \(run ?? 0)") }
      override func end() { log.append("end") }
    }
    let member = Member()
    #expect(member.run == nil)
    member.start()
    #expect(member.run == 1)
    member.start()  // already running: no second begin
    member.stop()
    #expect(member.run == nil)
    member.start()
    #expect(member.run == 2)  // a new run: deliveries of run 1 no longer match
    #expect(member.log == ["begin 1", "end", "begin 2"])
  }
}
