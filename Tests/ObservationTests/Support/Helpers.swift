import Dispatch
import Foundation

@testable import TinyObservation

/// Records values from any thread, in the order they arrive.
final class Recorder<Element: Sendable>: Sendable {
  private let items = Locked<[Element]>([])

  init() {}

  func record(_ element: Element) {
    items.withLock { $0.append(element) }
  }

  var all: [Element] {
    items.withLock { $0 }
  }

  var count: Int {
    items.withLock { $0.count }
  }
}

/// A one-shot signal between threads: `wait()` blocks until `open()`.
final class Gate: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)

  init() {}

  func open() {
    semaphore.signal()
  }

  /// Blocks the calling (non-cooperative) thread until `open()`; fails after 60 s so a broken
  /// test cannot hang the suite.
  func wait() {
    let opened = semaphore.wait(timeout: .now() + 60) == .success
    precondition(opened, "Gate.wait(): not opened within 60 s")
  }

  /// Suspends until `open()`, blocking a thread of its own rather than a cooperative one.
  func opened() async {
    await onNewThread { self.wait() }
  }
}

/// The identity of the calling thread (call it from synchronous code).
func currentThread() -> ObjectIdentifier {
  ObjectIdentifier(Thread.current)
}

/// Runs `body` on a new thread (never the main queue) and returns once it has finished.
func onNewThread(_ body: @escaping @Sendable () -> Void) async {
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    let thread = Thread {
      body()
      done.resume()
    }
    thread.start()
  }
}

/// Starts `body` on a new thread and returns at once, with a gate that opens when it finishes.
@discardableResult
func startThread(_ body: @escaping @Sendable () -> Void) -> Gate {
  let finished = Gate()
  Thread {
    body()
    finished.open()
  }.start()
  return finished
}

/// Runs `body(index)` on `count` new threads at once and returns when all have finished.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  let start = DispatchSemaphore(value: 0)
  let finished = DispatchGroup()
  for index in 0..<count {
    finished.enter()
    Thread {
      start.wait()
      body(index)
      finished.leave()
    }.start()
  }
  for _ in 0..<count { start.signal() }
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    finished.notify(queue: .global()) { done.resume() }
  }
}

/// Returns after every block queued on the main queue before this call has run: the main queue
/// is first-in, first-out, so a block queued now runs after all of them.
func mainQueueTurn() async {
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    DispatchQueue.main.async { done.resume() }
  }
}

/// Whether this process runs under the thread sanitizer (which makes stress tests much slower).
let isThreadSanitized: Bool = {
  #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  return dlsym(everywhere, "__tsan_init") != nil
}()

/// An error for throwing bodies and failing commits.
struct Oops: Error, Equatable {
  let code: Int
}

/// An object whose deallocation tests observe through a weak reference.
final class Owner: Sendable {
  let name: String

  init(_ name: String = "owner") {
    self.name = name
  }
}

/// A one-shot signal between tasks: `wait()` suspends until `fire()`, and returns at once
/// after it.
final class Signal: Sendable {
  private let state = Locked<(fired: Bool, waiters: [CheckedContinuation<Void, Never>])>(
    (false, []))

  init() {}

  func fire() {
    let waiters = state.withLock { state in
      defer { state = (true, []) }
      return state.waiters
    }
    waiters.forEach { $0.resume() }
  }

  /// Suspends until `fire()`; stops the test process if that takes 60 s, so a broken test
  /// cannot hang the suite.
  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let fired = state.withLock { state in
        if !state.fired { state.waiters.append(continuation) }
        return state.fired
      }
      if fired {
        continuation.resume()
        return
      }
      DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
        precondition(self.state.withLock { $0.fired }, "Signal.wait(): not fired within 60 s")
      }
    }
  }
}
