// The atomics the scopes read on every access to `Current`: `Synchronization.Atomic` where the
// platform has it for every supported version (Linux; on Apple platforms it needs macOS 15 and
// iOS 18, above the package's floor), else `Locked`. Both are noncopyable structs, stored
// inline in the object that holds them: a read is one load, with no object of its own to reach
// first.
import TinyInternals

/// Which of the pooled scope boxes are in use, and how many boxes outside the pool are (see
/// ``Scopes``), in one word: zero exactly when no scope box is in use anywhere, which a read of
/// `Current` checks with one load.
///
/// Bit `i` (below 32) is up while slot `i`'s box is checked out; it is the slot's lock, too: the
/// thread that raised it is the only one that touches the slot until it lowers it. The upper 32
/// bits count the boxes outside the pool that may be bound.
struct ScopeClaims: ~Copyable, Sendable {
  /// The number of pooled boxes.
  static var slotCount: Int { 32 }
  private static var slotBits: UInt64 { 1 << 32 - 1 }
  private static var outsideUnit: UInt64 { 1 << 32 }

  #if canImport(Darwin)
    private let word = Locked<UInt64>(0)
    var isZero: Bool { word.withLock { $0 == 0 } }

    /// Claims the lowest free slot and returns its number; when all are in use, counts one more
    /// box outside the pool and returns `nil`.
    func claim() -> Int? {
      word.withLock { word in
        let free = ~word & Self.slotBits
        guard free != 0 else {
          word &+= Self.outsideUnit
          return nil
        }
        word |= 1 << free.trailingZeroBitCount
        return free.trailingZeroBitCount
      }
    }

    private func add(_ delta: UInt64) {
      word.withLock { $0 &+= delta }
    }
  #else
    let word = Atomic<UInt64>(0)
    var isZero: Bool { word.load(ordering: .acquiring) == 0 }

    /// Claims the lowest free slot and returns its number; when all are in use, counts one more
    /// box outside the pool and returns `nil`.
    func claim() -> Int? {
      var old = word.load(ordering: .relaxed)
      while true {
        let free = ~old & Self.slotBits
        let slot = free == 0 ? nil : free.trailingZeroBitCount
        let new = slot.map { old | 1 << $0 } ?? old &+ Self.outsideUnit
        let (exchanged, original) = word.weakCompareExchange(
          expected: old, desired: new, ordering: .acquiringAndReleasing)
        if exchanged { return slot }
        old = original
      }
    }

    /// Adds `delta` to the word, wrapping (a subtraction is the addition of its negation).
    private func add(_ delta: UInt64) {
      word.wrappingAdd(delta, ordering: .acquiringAndReleasing)
    }
  #endif

  /// Frees `slot`, whose box is back in it. (Its bit is up, so subtracting it only lowers it.)
  func release(slot: Int) {
    add(0 &- Self.bit(slot))
  }

  /// Frees `slot`, whose box left it for good, and counts that box as one outside the pool.
  func releaseCountingOutside(slot: Int) {
    add(Self.outsideUnit &- Self.bit(slot))
  }

  /// Counts one box outside the pool less.
  func endOutside() {
    add(0 &- Self.outsideUnit)
  }

  private static func bit(_ slot: Int) -> UInt64 {
    1 << UInt64(slot)
  }
}

#if canImport(Darwin)
  /// A flag that goes up once and is read on every access to a scope's world.
  struct Flag: ~Copyable, Sendable {
    private let value = Locked(false)
    var isRaised: Bool { value.withLock { $0 } }
    func raise() { value.withLock { $0 = true } }
    func lower() { value.withLock { $0 = false } }
  }
#else
  import Synchronization

  /// A flag that goes up once and is read on every access to a scope's world.
  struct Flag: ~Copyable, Sendable {
    let value = Atomic(false)
    var isRaised: Bool { value.load(ordering: .acquiring) }
    func raise() { value.store(true, ordering: .releasing) }
    func lower() { value.store(false, ordering: .releasing) }
  }
#endif
