import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

extension Notification.Name {
  static let testPing = Notification.Name("TinyObservationTests.ping")
  static let testKeyboard = Notification.Name("TinyObservationTests.keyboard")
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) @MainActor struct ObservationGroupNotificationsTests {
  @Test func aNotificationPostedOnTheMainQueueIsHandledDuringPost() {
    let center = NotificationCenter()
    let group = ObservationGroup()
    var names: [Notification.Name] = []
    group.observe(notification: .testPing, center: center) { names.append($0) }
    center.post(name: .testPing, object: nil)
    #expect(names.isEmpty)  // not begun
    group.begin()
    #expect(names.isEmpty)  // notifications have no initial value
    center.post(name: .testPing, object: nil)
    #expect(names == [.testPing])
    group.end()
    center.post(name: .testPing, object: nil)
    #expect(names == [.testPing])
  }

  @Test func thePayloadIsReadOnThePostingThreadAndHandledOnTheMainQueueInOrder() async {
    let center = NotificationCenter()
    let group = ObservationGroup()
    var heights: [Double] = []
    let readOnMain = Recorder<Bool>()
    group.observe(
      notification: .testKeyboard, center: center,
      carrying: { note in
        readOnMain.record(MainQueue.isCurrent)
        return note.userInfo?["height"] as? Double ?? -1
      }
    ) { height in
      heights.append(height)
    }
    group.begin()
    startThread {
      for height in [100.0, 200, 300] {
        center.post(name: .testKeyboard, object: nil, userInfo: ["height": height])
      }
    }.wait()
    #expect(readOnMain.all == [false, false, false])
    #expect(heights.isEmpty)
    await mainQueueTurn()
    #expect(heights == [100, 200, 300])
    group.end()
  }

  @Test func endDropsNotificationsStillQueuedAndStopsObserving() async {
    let center = NotificationCenter()
    let group = ObservationGroup()
    var count = 0
    group.observe(notification: .testPing, center: center) { _ in count += 1 }
    group.begin()
    startThread { center.post(name: .testPing, object: nil) }.wait()
    group.end()
    await mainQueueTurn()
    #expect(count == 0)
  }

  @Test func filtersByObject() {
    let center = NotificationCenter()
    let sender = Owner("sender")
    let other = Owner("other")
    let group = ObservationGroup()
    var count = 0
    group.observe(notification: .testPing, object: sender, center: center) { _ in count += 1 }
    group.begin()
    center.post(name: .testPing, object: other)
    center.post(name: .testPing, object: sender)
    #expect(count == 1)
    group.end()
  }

  @Test func endingLetsTheCenterReleaseWhatTheObservationHolds() {
    // The center keeps its observer until it is removed: ending the group removes it, so the
    // payload's captures go with the group while the center lives on.
    let center = NotificationCenter()
    let freed = Recorder<String>()
    do {
      let group = ObservationGroup()
      let probe = OnDeinit { freed.record("payload") }
      group.observe(
        notification: .testPing, center: center, carrying: { [probe] _ in _ = probe }
      ) { _ in }
      group.begin()
      group.end()
    }
    #expect(freed.all == ["payload"])
    withExtendedLifetime(center) {}
  }

  @Test func removingTheObservationOrReleasingTheGroupUnregisters() {
    let center = NotificationCenter()
    var count = 0
    weak var weakGroup: ObservationGroup?
    do {
      let group = ObservationGroup()
      weakGroup = group
      let id = group.observe(notification: .testPing, center: center) { _ in count += 1 }
      group.begin()
      center.post(name: .testPing, object: nil)
      group.remove(id)
      center.post(name: .testPing, object: nil)
      group.observe(notification: .testPing, center: center) { _ in count += 10 }
      center.post(name: .testPing, object: nil)  // added while active: observes at once
    }
    #expect(weakGroup == nil)
    center.post(name: .testPing, object: nil)  // the released group observes nothing
    #expect(count == 11)
  }
}
