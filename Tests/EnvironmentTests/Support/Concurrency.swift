import Foundation

/// A thread-safe counter.
final class Counter: @unchecked Sendable {  // safe: `count` is only touched under `lock`
  private let lock = NSLock()
  private var count = 0

  func increment() {
    lock.withLock { count += 1 }
  }

  var value: Int {
    lock.withLock { count }
  }
}

/// A lock-protected list that `@Sendable` closures append to: the Swift 6 way to record
/// analytics events (`Current.track = events.append` does not compile).
final class Recorder<Element: Sendable>: @unchecked Sendable {  // safe: `items` under `lock`
  private let lock = NSLock()
  private var items: [Element] = []

  func record(_ element: Element) {
    lock.withLock { items.append(element) }
  }

  var recorded: [Element] {
    lock.withLock { items }
  }
}

/// Lets `count` tasks wait until all of them have arrived, so that they provably overlap.
actor Rendezvous {
  private let count: Int
  private var arrived = 0
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(count: Int) {
    self.count = count
  }

  func arrive() async {
    arrived += 1
    if arrived == count {
      for continuation in waiting { continuation.resume() }
      waiting = []
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }
}

/// A one-shot signal for async code: `wait()` returns once `open()` was called.
final class Gate: @unchecked Sendable {  // safe: `state` is only touched under `lock`
  private let lock = NSLock()
  private var isOpen = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func open() {
    let toResume = lock.withLock {
      isOpen = true
      defer { waiting = [] }
      return waiting
    }
    for continuation in toResume { continuation.resume() }
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let resumeNow = lock.withLock {
        if isOpen { return true }
        waiting.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }
}

/// Runs `body` on a new thread and returns its result, blocking until the thread ends.
func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
  let done = DispatchSemaphore(value: 0)
  let result = Recorder<T>()
  let thread = Thread {
    result.record(body())
    done.signal()
  }
  thread.start()
  done.wait()
  return result.recorded[0]
}

/// An object to hold weakly, to prove that a world releases what its closures capture.
final class Tracked: Sendable {}
