// The hand-written floor of TinyContext's read benchmarks and the owners' shuffled order,
// shared by the benchmark suite and `ContextInstructions`.

import Synchronization

/// The floor of the read goals: one `Mutex` around a dictionary keyed by the owners'
/// identities, each owner given its index.
///
/// Inlinable, so that a caller in another module runs it as if it were its own code.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class MutexDictionary: Sendable {
  @usableFromInline let entries: Mutex<[ObjectIdentifier: Int]>

  /// A dictionary that gives each of `owners` its index.
  @inlinable public init(_ owners: [AnyObject]) {
    var entries: [ObjectIdentifier: Int] = [:]
    for (index, owner) in owners.enumerated() { entries[ObjectIdentifier(owner)] = index }
    self.entries = Mutex(entries)
  }

  /// The value of `owner`, under the lock.
  @inlinable public func value(for owner: AnyObject) -> Int? {
    entries.withLock { $0[ObjectIdentifier(owner)] }
  }
}

/// The owners of one benchmark in a fixed shuffled order, read one after another, round and
/// round: every variant of a group gets its own `Walk` over the same order, so the floor and
/// the row read the same owners in the same order.
///
/// The walk hands each owner to its body without retaining it (the array keeps them alive): a
/// retain and a release of the owner are no part of a lookup, and an owner that has been weakly
/// referenced (as the shared table does) takes a slower path for them.
public final class Walk<Owner: AnyObject> {
  @usableFromInline let owners: [Unmanaged<Owner>]
  @usableFromInline let keep: [Owner]
  @usableFromInline var position = 0

  /// A walk over `owners` in the order given (shuffle them once, then make one walk per
  /// variant).
  @inlinable public init(_ owners: [Owner]) {
    self.owners = owners.map { Unmanaged.passUnretained($0) }
    keep = owners
  }

  /// Calls `body` with the next owner, back to the first after the last, and returns what it
  /// returns.
  @inlinable @inline(__always) public func next<Result>(_ body: (Owner) -> Result) -> Result {
    let owner = owners[position]
    position = position == owners.count - 1 ? 0 : position + 1
    return owner._withUnsafeGuaranteedRef(body)
  }
}

/// `owners` in an order shuffled by a fixed seed, the same in every process and every run.
public func shuffled<Owner>(_ owners: [Owner]) -> [Owner] {
  var generator = SplitMix(seed: 41)
  return owners.shuffled(using: &generator)
}

/// A small seeded generator, so that the shuffled order is fixed.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
