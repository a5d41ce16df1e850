import Foundation
import Testing
import TinyContext
import TinyTestSupport

/// Many threads at once, exact counts; run under `--sanitize=thread` by CI.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct ContextStressTests {
  static let threads = 8
  /// The full volume with `TINYBLOCKS_FULL_STRESS=1`; a tenth under the thread sanitizer, which
  /// reports races from the order of accesses, not from their number. The check-then-act races
  /// are forced with barriers (below and in ContextTableTests), not left to this volume.
  static let iterations = stressVolume(full: 2_000, quick: 200)
  /// Rounds of the forced races: each round forces the interleaving, so a few suffice.
  static let rounds = stressVolume(full: 50, quick: 5)

  @Test(arguments: ContextKind.allCases)
  func racingGetOrInsertCallersAllGetTheOneStoredValue(kind: ContextKind) {
    for _ in 0..<Self.rounds {
      let (info, keepAlive) = kind.make()
      let key = ContextKey<Counter>("counter")
      let identities = IdentitySet()
      // Every caller finds nothing and makes a counter; none stores before all have made
      // theirs, so they all race to store.
      let allMade = Barrier(parties: Self.threads)
      let made = Counter()
      onThreadsBlocking(Self.threads) { _ in
        let counter = info.value(
          for: key,
          orInsert: {
            made.increment()
            allMade.arriveAndWait()
            return Counter()
          }())
        counter.increment()
        identities.insert(counter)
      }
      #expect(made.value == Self.threads)
      #expect(identities.count == 1)
      #expect(info[key]?.value == Self.threads)
      withExtendedLifetime(keepAlive) {}
    }
  }

  @Test(arguments: ContextKind.allCases)
  func concurrentWritersOfDifferentKeysNeverLoseAWrite(kind: ContextKind) {
    let (info, keepAlive) = kind.make()
    let keys = (0..<Self.threads).map { ContextKey<Int>("thread \($0)") }
    onThreadsBlocking(Self.threads) { thread in
      for iteration in 1...Self.iterations {
        info[keys[thread]] = iteration
        info["thread \(thread)"] = iteration
        #expect(info[keys[thread]] == iteration)
        if iteration.isMultiple(of: 100) {
          info.removeValue(for: keys[thread])
          info[keys[thread]] = iteration
        }
      }
    }
    for (thread, key) in keys.enumerated() {
      #expect(info[key] == Self.iterations)
      #expect(info["thread \(thread)"] as? Int == Self.iterations)
    }
    withExtendedLifetime(keepAlive) {}
  }

  @Test func manyThreadsOnOneTableWhileOwnersComeAndGo() {
    let table = ContextTable()
    let key = ContextKey<Counter>("counter")
    let live = (0..<16).map { _ in Model() }
    let expected = Self.threads * Self.iterations / live.count
    onThreadsBlocking(Self.threads) { thread in
      for iteration in 0..<Self.iterations {
        // A short-lived owner: inserted, then dead; the sweep reclaims it meanwhile.
        let passing = Model()
        table.contextInfo(for: passing)[ContextKey<Int>("passing")] = iteration
        let owner = live[(thread * Self.iterations + iteration) % live.count]
        table.contextInfo(for: owner).value(for: key, orInsert: Counter()).increment()
      }
    }
    for owner in live {
      #expect(table.contextInfo(for: owner)[key]?.value == expected)
    }
    // The passing owners' leftover entries are reclaimed within the stated bound.
    let probe = Model()
    let bound = 12 * table.count
    var operations = 0
    while table.count > live.count, operations < bound {
      _ = table.hasContext(for: probe)
      operations += 1
    }
    #expect(table.count == live.count)
  }

  @Test func racingFirstWritesThroughViewsMadeBeforeAnyContextCreateOneContext() {
    // Every thread makes its view of an object that has no context, and only once all have
    // (every one missed the lookup) do they write, half through one shared view and half
    // through views of their own.
    for _ in 0..<Self.rounds {
      let table = ContextTable()
      let owner = Model()
      let shared = table.contextInfo(for: owner)  // no context yet
      let allLookedUp = Barrier(parties: Self.threads)
      onThreadsBlocking(Self.threads) { thread in
        let own = table.contextInfo(for: owner)
        #expect(!table.hasContext(for: owner))
        allLookedUp.arriveAndWait()
        let info = thread.isMultiple(of: 2) ? shared : own
        info["thread \(thread)"] = thread
      }
      #expect(table.count == 1)
      for thread in 0..<Self.threads {
        #expect(table.contextInfo(for: owner)["thread \(thread)"] as? Int == thread)
        #expect(shared["thread \(thread)"] as? Int == thread)
      }
    }
  }

  @Test func racingFirstWritesThroughAViewWhoseObjectIsGoneShareOneContext() {
    // The object is gone before the first write: the writes make one context attached to
    // nothing, which every copy of the view then shares.
    for _ in 0..<Self.rounds {
      let table = ContextTable()
      weak var gone: Model?
      var owner: Model? = Model()
      gone = owner
      let view = table.contextInfo(for: owner!)
      owner = nil
      #expect(gone == nil)
      onThreadsBlocking(Self.threads) { thread in
        view["thread \(thread)"] = thread
      }
      for thread in 0..<Self.threads {
        #expect(view["thread \(thread)"] as? Int == thread)
      }
      #expect(table.count == 0)
    }
  }

  @Test func theDefaultContextOfManyObjectsFromManyThreads() {
    let owners = (0..<32).map { _ in Model() }
    let key = ContextKey<Counter>("counter")
    onThreadsBlocking(Self.threads) { thread in
      for iteration in 0..<Self.iterations {
        let owner = owners[(thread + iteration) % owners.count]
        owner.contextInfo.value(for: key, orInsert: Counter()).increment()
      }
    }
    let total = owners.map { $0.contextInfo[key]?.value ?? 0 }.reduce(0, +)
    #expect(total == Self.threads * Self.iterations)
  }
}

/// The distinct objects inserted from any thread.
final class IdentitySet: @unchecked Sendable {  // safe: `identities` is only touched under `lock`
  private let lock = NSLock()
  private var identities = Set<ObjectIdentifier>()

  func insert(_ object: AnyObject) {
    lock.lock()
    identities.insert(ObjectIdentifier(object))
    lock.unlock()
  }

  var count: Int {
    lock.lock()
    defer { lock.unlock() }
    return identities.count
  }
}
