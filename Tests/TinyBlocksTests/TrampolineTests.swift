// The trampoline every block whose work chains shares.

import Foundation
import Testing
import TinyInternals
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct TrampolineTests {
  /// A link of a chain: releasing it releases the next one.
  private final class Link {
    var next: Link?
    let released: Counter

    init(next: Link?, released: Counter) {
      self.next = next
      self.released = released
    }

    deinit {
      released.increment()
      Trampoline.release(next.take())
    }
  }

  @Test func workQueuedFromInsideRunsAfterTheCurrentPieceInOrder() {
    let order = Recorder<String>()
    Trampoline.run {
      order.record("a")
      Trampoline.run { order.record("b") }
      Trampoline.run {
        order.record("c")
        Trampoline.run { order.record("e") }
      }
      order.record("a done")
      Trampoline.run { order.record("d") }
    }
    #expect(order.all == ["a", "a done", "b", "c", "d", "e"])
    // The thread is no longer inside: the next run runs at once.
    Trampoline.run { order.record("f") }
    #expect(order.all.last == "f")
  }

  @Test func aMillionNestedStepsRunOnASmallStack() {
    let steps = 1_000_000
    let count = Counter()
    @Sendable func step(_ remaining: Int) {
      count.increment()
      if remaining > 0 { Trampoline.run { step(remaining - 1) } }
    }
    let thread = onSmallStack { Trampoline.run { step(steps - 1) } }
    thread.wait()
    #expect(count.value == steps)
  }

  @Test func releasingAMillionLinkChainRunsOnASmallStack() {
    let links = 1_000_000
    let released = Counter()
    let thread = onSmallStack {
      var head: Link?
      for _ in 0..<links { head = Link(next: head, released: released) }
      Trampoline.release(head.take())
    }
    thread.wait()
    #expect(released.value == links)
  }
}
