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
