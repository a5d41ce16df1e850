import Testing
import TinyTestSupport

@testable import TinyEnvironment
import TinyInternals

/// The word that says which pooled scope boxes are in use and how many boxes outside the pool
/// are: zero exactly when no box is in use, which is what lets a read of `Current` skip the
/// task-local lookup. A fresh word for each test, so that scopes in parallel tests do not count.
@Suite(.timeLimit(suiteTimeLimit)) struct ScopeClaimsTests {
  /// A fresh word, in an object that threads can share (the word itself is noncopyable).
  private final class Claims: Sendable {
    private let word = ScopeClaims()
    /// How many threads hold each slot.
    let holders = Locked([Int](repeating: 0, count: ScopeClaims.slotCount))

    init() {}

    var isZero: Bool { word.isZero }
    func claim() -> Int? { word.claim() }
    func release(slot: Int) { word.release(slot: slot) }
    func releaseCountingOutside(slot: Int) { word.releaseCountingOutside(slot: slot) }
    func endOutside() { word.endOutside() }
  }

  @Test func claimsTheLowestFreeSlotThenCountsBoxesOutsideThePool() {
    let claims = Claims()
    #expect(claims.isZero)
    let slots = (0..<ScopeClaims.slotCount).map { _ in claims.claim() }
    #expect(slots == Array(0..<ScopeClaims.slotCount))
    #expect(claims.claim() == nil)  // every slot is in use: one box outside the pool
    #expect(claims.claim() == nil)
    claims.release(slot: 5)
    #expect(claims.claim() == 5)  // a freed slot is claimed again first
    for slot in 0..<ScopeClaims.slotCount { claims.release(slot: slot) }
    #expect(!claims.isZero)  // two boxes outside the pool are still in use
    claims.endOutside()
    #expect(!claims.isZero)
    claims.endOutside()
    #expect(claims.isZero)
  }

  @Test func aSlotWhoseBoxLeftItIsFreeWhileTheBoxStaysCounted() {
    let claims = Claims()
    #expect(claims.claim() == 0)
    #expect(claims.claim() == 1)
    claims.releaseCountingOutside(slot: 0)  // a task still holds slot 0's box
    #expect(claims.claim() == 0)
    claims.release(slot: 0)
    claims.release(slot: 1)
    #expect(!claims.isZero)  // until that box deinitializes
    claims.endOutside()
    #expect(claims.isZero)
  }

  @Test func threadsClaimingAtOnceNeverShareASlot() async {
    let shared = Claims()
    let rounds = stressVolume(full: 20_000, quick: 2_000)
    let clashes = Counter()
    await onThreads(4) { _ in
      for _ in 0..<rounds {
        guard let slot = shared.claim() else {
          shared.endOutside()
          continue
        }
        // Two holders of one slot at once: the second finds the first's mark.
        let alone = shared.holders.withLock { holders in
          defer { holders[slot] += 1 }
          return holders[slot] == 0
        }
        if !alone { clashes.increment() }
        shared.holders.withLock { $0[slot] -= 1 }
        shared.release(slot: slot)
      }
    }
    #expect(clashes.value == 0)
    #expect(shared.isZero)
  }
}
