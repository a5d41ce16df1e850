import Foundation
import Testing
import TinyContext
import TinyTestSupport

/// A value whose release a test can observe through a weak reference.
final class Probe: Sendable, CustomStringConvertible {
  let id: Int

  init(_ id: Int = 0) {
    self.id = id
  }

  var description: String { "Probe(\(id))" }
}

/// A pure Swift class that carries the default context (the side table on Linux).
final class Model: ContextCarrying, Sendable {}

/// A class that owns its context: exact lifetime, the fastest reads.
final class OwnerHeld: ContextCarrying, Sendable {
  let contextInfo = ContextInfo()
}

/// A value that holds a strong reference to an object: a context value referencing its owner.
final class Holder: Sendable {
  let object: any AnyObject & Sendable

  init(_ object: any AnyObject & Sendable) {
    self.object = object
  }
}

/// A value whose `deinit` reads and writes a context, to prove values are released outside
/// the context's lock (under it, the nested access would deadlock).
final class ReentrantValue: Sendable {
  let context: ContextInfo
  let key: ContextKey<Int>

  init(context: ContextInfo, key: ContextKey<Int>) {
    self.context = context
    self.key = key
  }

  deinit {
    context[key] = (context[key] ?? 0) + 1
  }
}

/// Collects the chunks of a response, from any thread.
final class ResponseBuffer: @unchecked Sendable {  // safe: `data` is only touched under `lock`
  private let lock = NSLock()
  private var data = Data()

  func append(_ chunk: Data) {
    lock.lock()
    data.append(chunk)
    lock.unlock()
  }

  var bytes: Data {
    lock.lock()
    defer { lock.unlock() }
    return data
  }
}

/// Weak references to objects, to check which ones were released.
struct WeakReferences {
  private final class Reference {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
  }

  private var references: [Reference] = []

  mutating func watch(_ object: AnyObject) {
    references.append(Reference(object))
  }

  /// The number of watched objects still alive.
  var aliveCount: Int {
    references.filter { $0.object != nil }.count
  }
}

/// A link of a chain of owners: its context holds the next link, so releasing the first
/// releases the whole chain. It counts its own release.
final class Link: ContextCarrying, Sendable {
  let released: Counter

  init(released: Counter) {
    self.released = released
  }

  deinit {
    released.increment()
  }
}

/// A link that owns its context (`let contextInfo = ContextInfo()`).
final class OwnerHeldLink: ContextCarrying, Sendable {
  let contextInfo = ContextInfo()
  let released: Counter

  init(released: Counter) {
    self.released = released
  }

  deinit {
    released.increment()
  }
}

/// The key under which each link of a chain holds the next one.
let nextLinkKey = ContextKey<Link>("next")
let nextOwnerHeldLinkKey = ContextKey<OwnerHeldLink>("next")

/// Looks up an object without a context in the shared table until `isDone` holds, so that the
/// table's sweep reaches the entries of owners that are gone (Linux). Other tests add owners
/// to the shared table meanwhile, so the bound (12 n lookups, the table's bound for reclaiming
/// one entry) follows the largest size the table reaches. An entry that another test's
/// operation reclaimed is released on that test's thread after its lock: that is waited out
/// too, for at most ``helperTimeout``.
func sweepSharedTable(until isDone: () -> Bool) {
  let probe = Model()
  var lookups = 0
  var largest = 0
  while !isDone() {
    largest = max(largest, ContextTable.shared.count)
    guard lookups <= 12 * (largest + 1) else { break }
    _ = ContextTable.shared.hasContext(for: probe)
    lookups += 1
  }
  let deadline = ContinuousClock.now + helperTimeout
  while !isDone(), ContinuousClock.now < deadline { sched_yield() }
}

/// Waits, for at most ``helperTimeout``, until `isDone` holds, on Linux, where another test's
/// sweep of the shared table may be holding an object for the moment it takes to see whether
/// it is alive (it releases the object after unlocking, on its own thread). Use it before
/// checking that an object whose default context lives in the shared table is gone.
func waitOutSharedTableSweeps(until isDone: () -> Bool) {
  #if !canImport(ObjectiveC)
    let deadline = ContinuousClock.now + helperTimeout
    while !isDone(), ContinuousClock.now < deadline { sched_yield() }
  #endif
}
