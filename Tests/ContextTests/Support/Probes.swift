import Foundation
import Testing
import TinyContext

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

/// A counter that many threads can bump.
final class Counter: @unchecked Sendable {  // safe: `value` is only touched under `lock`
  private let lock = NSLock()
  private var count = 0

  func increment() {
    lock.lock()
    count += 1
    lock.unlock()
  }

  var value: Int {
    lock.lock()
    defer { lock.unlock() }
    return count
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

/// Runs `body` on `threads` threads at once, each with its index, and returns when all are
/// done.
func onThreads(_ threads: Int, _ body: @Sendable (Int) -> Void) {
  DispatchQueue.concurrentPerform(iterations: threads, execute: body)
}

/// Runs `body` on `threads` new threads, all alive at once (unlike `concurrentPerform`, which
/// may run fewer at a time than there are iterations), and returns when all are done.
///
/// Bounded: if the threads are not all done within `timeout`, it records a failure and
/// returns (the stuck threads are left behind, the test does not hang).
func onDedicatedThreads(
  _ threads: Int, timeout: DispatchTimeInterval = .seconds(10),
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: @escaping @Sendable (Int) -> Void
) {
  let done = DispatchSemaphore(value: 0)
  for index in 0..<threads {
    Thread {
      body(index)
      done.signal()
    }.start()
  }
  let deadline = DispatchTime.now() + timeout
  for finished in 0..<threads where done.wait(timeout: deadline) == .timedOut {
    Issue.record(
      "onDedicatedThreads: \(threads - finished) of \(threads) threads still running after \(timeout)",
      sourceLocation: sourceLocation)
    return
  }
}

/// Blocks each caller of `arriveAndWait()` until `parties` callers have arrived, or until a
/// timeout, so that a broken test fails instead of hanging.
final class Barrier: @unchecked Sendable {  // safe: `arrived` is only touched under `condition`
  private let condition = NSCondition()
  private let parties: Int
  private let timeout: TimeInterval
  private var arrived = 0

  init(parties: Int, timeout: TimeInterval = 10) {
    self.parties = parties
    self.timeout = timeout
  }

  /// Returns `true` when all parties arrived, `false` after the timeout.
  @discardableResult
  func arriveAndWait() -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    condition.lock()
    defer { condition.unlock() }
    arrived += 1
    if arrived == parties { condition.broadcast() }
    while arrived < parties {
      if !condition.wait(until: deadline) { return arrived >= parties }
    }
    return true
  }
}

/// Whether the tests run under the thread sanitizer (`swift test --sanitize=thread`), which
/// makes every memory access, allocation and lock several times slower: the single-threaded
/// volume tests then run a tenth of their volume (they test counts, not races; the plain
/// `swift test` runs them in full).
let isUnderThreadSanitizer: Bool = {
  guard let process = dlopen(nil, RTLD_NOW) else { return false }
  defer { dlclose(process) }
  return dlsym(process, "__tsan_init") != nil
}()
