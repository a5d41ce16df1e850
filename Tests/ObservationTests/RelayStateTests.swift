import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct RelayStateTests {
  typealias Action = RelayState<Int>.Action

  @Test(
    "the first item of a run decides how to drain",
    arguments: [(true, Action.drainNow), (false, Action.scheduleDrain)])
  func firstItem(onMainQueue: Bool, action: Action) {
    var relay = RelayState<Int>()
    #expect(relay.send(1, onMainQueue: onMainQueue) == action)
    #expect(relay.isDraining)
    // Everything sent while a drain runs or is scheduled joins it, from anywhere.
    #expect(relay.send(2, onMainQueue: true) == .none)
    #expect(relay.send(3, onMainQueue: false) == .none)
    #expect(relay.next() == [1, 2, 3])
    #expect(relay.isDraining)  // the drain ends only when it finds nothing
    #expect(relay.send(4, onMainQueue: true) == .none)
    #expect(relay.next() == [4])
    #expect(relay.next() == [])
    #expect(!relay.isDraining)
    #expect(relay.send(5, onMainQueue: true) == .drainNow)  // nothing earlier waits
  }

  @Test func takingTheWaitingItemsHandsThemBackAndEmptiesTheQueue() {
    var relay = RelayState<Int>()
    _ = relay.send(1, onMainQueue: false)
    _ = relay.send(2, onMainQueue: false)
    #expect(relay.takeWaiting() == [1, 2])  // handed back, to release after unlocking
    #expect(relay.waiting.isEmpty)
    #expect(relay.next() == [])  // the scheduled drain finds nothing and ends
    #expect(!relay.isDraining)
  }

  @Test func everyInterleavingHandsOverEachItemOnceInOrder() {
    // Steps: 0 send off-main, 1 send on main, 2 a drain takes the items waiting.
    func run(_ steps: [Int]) {
      var relay = RelayState<Int>()
      var sent = 0
      var received: [Int] = []
      var draining = false
      func drainStep() {
        let items = relay.next()
        received += items
        if items.isEmpty { draining = false }
      }
      for step in steps {
        switch step {
        case 0, 1:
          sent += 1
          let action = relay.send(sent, onMainQueue: step == 1)
          #expect((action != .none) == !draining, "\(steps)")
          if action != .none { draining = true }
        default:
          if draining { drainStep() }
        }
      }
      while draining { drainStep() }
      #expect(received == Array(1..<sent + 1), "\(steps)")
    }
    var steps: [[Int]] = [[]]
    for _ in 0..<7 {
      steps = steps.flatMap { prefix in (0..<3).map { prefix + [$0] } }
      steps.forEach(run)
    }
  }
}
