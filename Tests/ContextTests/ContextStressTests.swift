import Foundation
import Testing
import TinyContext
import TinyTestSupport

/// Many threads at once, exact counts; run under `--sanitize=thread` by CI.
@Suite struct ContextStressTests {
  static let threads = 8
  /// Fewer under the thread sanitizer: it reports races from the order of accesses, not from
  /// their number, and makes each access several times slower.
  static let iterations = isThreadSanitized ? 500 : 2_000

  @Test(arguments: ContextKind.allCases)
  func racingGetOrInsertCallersAllGetTheOneStoredValue(kind: ContextKind) {
    for _ in 0..<20 {
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

  @Test func racingFirstWritesThroughOnePendingContextCreateOneContext() {
    for _ in 0..<50 {
      let table = ContextTable()
      let owner = Model()
      let pending = table.contextInfo(for: owner)  // no context yet
      let views = (0..<Self.threads).map { _ in table.contextInfo(for: owner) }
      onThreadsBlocking(Self.threads) { thread in
        let info = thread.isMultiple(of: 2) ? pending : views[thread]
        info["thread \(thread)"] = thread
      }
      #expect(table.count == 1)
      for thread in 0..<Self.threads {
        #expect(table.contextInfo(for: owner)["thread \(thread)"] as? Int == thread)
      }
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
