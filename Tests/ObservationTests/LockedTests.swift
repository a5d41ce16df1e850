import Testing

@testable import TinyObservation

@Suite struct LockedTests {
  @Test func countsExactlyUnderContention() async {
    // While one thread holds the lock, another thread's lock waits for it: contention, not
    // recursion, so nothing traps.
    let counter = Locked(0)
    await onThreads(8) { _ in
      for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
    }
    #expect(counter.withLock { $0 } == 80_000)
  }

  @Test func rethrowsTheBodysTypedError() {
    let locked = Locked(1)
    #expect(throws: Oops(code: 1)) {
      try locked.withLock { (value: inout Int) throws(Oops) in throw Oops(code: value) }
    }
  }

  @Test func aFlagIsRaisedOnceByExactlyOneCaller() async {
    let flag = Flag()
    #expect(!flag.isRaised)
    let raisers = Locked(0)
    await onThreads(8) { _ in
      if flag.raise() { raisers.withLock { $0 += 1 } }
    }
    #expect(flag.isRaised)
    #expect(raisers.withLock { $0 } == 1)
  }

  @Test func lockingAgainFromTheHoldingThreadTrapsInsteadOfDeadlocking() async {
    let result = await #expect(
      processExitsWith: .failure, observing: [\.standardErrorContent]
    ) {
      let locked = Locked(0)
      locked.withLock { _ in locked.withLock { $0 += 1 } }
    }
    #if os(Linux)
      // Linux locks record their holder, so the message names the API; on Apple platforms
      // `os_unfair_lock` reports the recursion itself.
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("TinyObservation: an atom was used from inside"))
    #endif
  }
}
