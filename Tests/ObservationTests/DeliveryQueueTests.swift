import Testing
import TinyTestSupport

@testable import TinyObservation

/// The serial-delivery state machine, checked against a model over every sequence of
/// operations up to a length (submissions from "other threads" and the deliverer's `next()`),
/// and the race between a submitter and a deliverer that ends its turn without the lock, forced.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct DeliveryQueueTests {
  @Test func theFirstSubmitterDeliversAndLaterOnesQueueBehindIt() {
    var queue = DeliveryQueue<Int>()
    #expect(!queue.isDelivering)
    #expect(queue.submit(1) == 1)  // nobody delivering: the caller delivers
    #expect(queue.isDelivering)
    #expect(queue.submit(2) == nil)  // queued for the deliverer
    #expect(queue.submit(3) == nil)
    #expect(queue.pending.count == 2)
    #expect(queue.next() == 2)
    #expect(queue.next() == 3)
    #expect(queue.isDelivering)
    #expect(queue.next() == nil)  // done: the caller stops delivering
    #expect(!queue.isDelivering)
    #expect(queue.submit(4) == 4)
  }

  @Test func aSubmitterThatLoadedTheTurnBeforeTheDelivererFinishedDeliversItself() {
    var queue = DeliveryQueue<Int>()
    #expect(queue.submit(1) == 1)
    let seen = queue.turn.load()  // a submitter loads the turn while the deliverer is busy…
    #expect(seen == DeliveryTurn.delivering)
    #expect(DeliveryTurn.finish(queue.turn))  // …the deliverer finishes, without the lock…
    #expect(!queue.isDelivering)
    #expect(queue.submit(2, seen: seen) == 2)  // …so the submitter delivers its batch itself
    #expect(queue.isDelivering)
    #expect(queue.pending.isEmpty)
    #expect(queue.next() == nil)
    #expect(!queue.isDelivering)
  }

  @Test func theDelivererFinishesWithoutTheLockOnlyWhenNoBatchWaits() {
    var queue = DeliveryQueue<Int>()
    #expect(!DeliveryTurn.finish(queue.turn))  // nobody delivers: there is no turn to end
    #expect(queue.submit(1) == 1)
    #expect(queue.submit(2) == nil)
    #expect(queue.turn.load() == DeliveryTurn.waiting)
    #expect(!DeliveryTurn.finish(queue.turn))  // a batch waits: the deliverer must take it
    #expect(queue.takeWaiting() == 2)
    #expect(queue.turn.load() == DeliveryTurn.delivering)
    #expect(DeliveryTurn.finish(queue.turn))
    #expect(queue.turn.load() == DeliveryTurn.idle)
  }

  @Test func aTurnThatFoundNoBatchWaitingEndsSoLaterBatchesAreStillDelivered() {
    // Not reachable through `submit`; the deliverer must not be left holding a turn.
    var queue = DeliveryQueue<Int>()
    #expect(queue.submit(1) == 1)
    queue.turn.store(DeliveryTurn.waiting)
    #expect(queue.takeWaiting() == nil)
    #expect(!queue.isDelivering)
    #expect(queue.submit(2) == 2)
  }

  @Test func everySequenceOfStepsDeliversEachBatchOnceInOrderWithOneDeliverer() {
    // All 2^10 sequences of 10 steps (a bit set: the deliverer's `next()`; clear: a submission);
    // `next` is only legal for the deliverer, so it is skipped while nobody delivers.
    for mask in 0..<(1 << 10) {
      var queue = DeliveryQueue<Int>()
      var submitted = 0
      var delivered: [Int] = []
      var deliverer = false
      for bit in 0..<10 {
        if mask & (1 << bit) == 0 {
          submitted += 1
          if let batch = queue.submit(submitted) {
            #expect(!deliverer, "two deliverers at once")
            deliverer = true
            delivered.append(batch)
          }
        } else if deliverer {
          if let batch = queue.next() {
            delivered.append(batch)
          } else {
            deliverer = false
          }
        }
        #expect(queue.isDelivering == deliverer)
      }
      while deliverer {
        if let batch = queue.next() { delivered.append(batch) } else { deliverer = false }
      }
      #expect(delivered == Array(1..<submitted + 1), "mask \(mask)")
      #expect(queue.pending.isEmpty)
    }
  }
}

extension DeliveryQueue {
  /// The deliverer's two steps after each batch, as an atom takes them: ``DeliveryTurn/finish(_:)``
  /// without the lock, then ``takeWaiting()``. Returns the next batch, or `nil`, and then the
  /// caller is no longer the deliverer.
  mutating func next() -> Batch? {
    DeliveryTurn.finish(turn) ? nil : takeWaiting()
  }
}
