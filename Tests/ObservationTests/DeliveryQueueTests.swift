import Testing
import TinyTestSupport

@testable import TinyObservation

/// The serial-delivery state machine, checked against a model over every sequence of
/// operations up to a length: submissions from "other threads" and the deliverer's `next()`.
@Suite(.timeLimit(suiteTimeLimit)) struct DeliveryQueueTests {
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
