import Dispatch
import Foundation
import Testing
import TinyInternals

/// The longest any helper here waits before it stops the test process: a broken test fails
/// with a message naming the helper instead of hanging the suite. A minute, or five when the run
/// is slow (``runsSlowly``).
public let helperTimeout: Duration = .seconds(runsSlowly ? 300 : 60)

/// A one-shot signal between threads and tasks: ``open()`` releases every ``wait()`` and
/// ``opened()``, now and later.
public final class Gate: Sendable {
  private let state = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>(
    (false, []))
  private let semaphore = DispatchSemaphore(value: 0)

  /// Creates a closed gate.
  public init() {}

  /// Opens the gate.
  public func open() {
    let waiting = state.withLock { state in
      defer { state = (true, []) }
      return state.isOpen ? [] : state.waiting
    }
    waiting.forEach { $0.resume() }
    semaphore.signal()
  }

  /// Whether ``open()`` was called.
  public var isOpen: Bool {
    state.withLock { $0.isOpen }
  }

  /// Blocks the calling thread (never a cooperative one) until the gate opens; stops the test
  /// process after ``helperTimeout``.
  public func wait() {
    guard !isOpen else { return }
    guard
      semaphore.wait(timeout: .now() + .seconds(Int(helperTimeout.components.seconds)))
        == .success
    else { fatalError("Gate.wait(): not opened within \(helperTimeout)") }
    semaphore.signal()  // lets every other blocked waiter through too
  }

  /// Suspends, without blocking a thread, until the gate opens; stops the test process after
  /// ``helperTimeout``.
  public func opened() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let isOpen = state.withLock { state in
        if !state.isOpen { state.waiting.append(continuation) }
        return state.isOpen
      }
      if isOpen { return continuation.resume() }
      DispatchQueue.global().asyncAfter(deadline: .now() + helperTimeout.seconds) {
        if !self.isOpen { fatalError("Gate.opened(): not opened within \(helperTimeout)") }
      }
    }
  }
}

/// Blocks each caller of ``arriveAndWait()`` until `parties` callers have arrived, so that they
/// provably overlap; stops the test process after ``helperTimeout``.
public final class Barrier: @unchecked Sendable {
  // @unchecked: `arrived` is only touched with `condition` locked.
  private let condition = NSCondition()
  private let parties: Int
  private var arrived = 0

  /// Creates a barrier for `parties` callers.
  public init(parties: Int) {
    self.parties = parties
  }

  /// Arrives and waits for the other parties.
  public func arriveAndWait() {
    let deadline = Date(timeIntervalSinceNow: helperTimeout.seconds)
    condition.lock()
    defer { condition.unlock() }
    arrived += 1
    if arrived == parties { condition.broadcast() }
    while arrived < parties {
      if !condition.wait(until: deadline) {
        fatalError("Barrier: \(arrived) of \(parties) parties arrived within \(helperTimeout)")
      }
    }
  }
}

/// Runs `body` on a new thread (never the main queue, never a cooperative thread) and returns
/// its result once it has finished, without blocking the caller's thread.
public func onNewThread<Result: Sendable>(
  _ body: @escaping @Sendable () -> Result
) async -> Result {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: body()) }.start()
  }
}

/// Runs `body` on a new thread and blocks the caller until it has finished; for synchronous
/// tests. Stops the test process after ``helperTimeout``.
public func onNewThreadBlocking<Result: Sendable>(
  _ body: @escaping @Sendable () -> Result
) -> Result {
  let result = Recorder<Result>()
  let done = Gate()
  Thread {
    result.record(body())
    done.open()
  }.start()
  done.wait()
  return result.all[0]
}

/// Starts `body` on a new thread and returns at once, with a gate that opens when it finishes.
@discardableResult
public func startThread(_ body: @escaping @Sendable () -> Void) -> Gate {
  let finished = Gate()
  Thread {
    body()
    finished.open()
  }.start()
  return finished
}

/// Starts `body` on a new thread with a 512 KB stack, as Dispatch's worker threads have on
/// Apple platforms, and returns at once, with a gate that opens when it finishes: deep
/// recursion that a chain of user data could cause overflows there.
@discardableResult
public func onSmallStack(_ body: @escaping @Sendable () -> Void) -> Gate {
  let finished = Gate()
  let thread = Thread {
    body()
    finished.open()
  }
  thread.stackSize = 512 * 1_024
  thread.start()
  return finished
}

/// Runs `body(index)` on `count` new threads, released together once all exist, and returns
/// when every one has finished, without blocking the caller's thread.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
  let finished = (0..<count).map { _ in Gate() }
  let start = Barrier(parties: count)
  for index in 0..<count {
    Thread {
      start.arriveAndWait()
      body(index)
      finished[index].open()
    }.start()
  }
  for gate in finished { await gate.opened() }
}

/// Runs `body(index)` on `count` new threads, released together once all exist, and blocks the
/// caller until every one has finished; for synchronous tests.
public func onThreadsBlocking(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
  let start = Barrier(parties: count)
  let finished = (0..<count).map { index in
    startThread {
      start.arriveAndWait()
      body(index)
    }
  }
  for gate in finished { gate.wait() }
}

/// Returns after every block queued on the main queue before this call has run: the main queue
/// is first-in, first-out, so a block queued now runs after all of them.
public func mainQueueTurn() async {
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    DispatchQueue.main.async { done.resume() }
  }
}

/// Inside an exit test that expects the program to stop: ends the process successfully after
/// `seconds` if it is still running, so that a hang (what a missed trap can turn into) fails the
/// test by name instead of stalling the suite.
public func exitSuccessfullyIfStillRunning(after seconds: Int = 30) {
  // timing: a watchdog, not an ordering of events.
  DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { exit(0) }
}

/// The task's result, awaited for at most ``helperTimeout``; stops the test process with a
/// message naming the caller when the task has not finished by then.
///
/// A test's time limit cannot end an `await` on an unstructured task that never finishes (the
/// limit cancels the test, and the test still waits), so a broken test would hang the whole run
/// without a name. Await tasks through this instead.
public func result<Success: Sendable, Failure: Error>(
  of task: Task<Success, Failure>, caller: String = #function, fileID: String = #fileID,
  line: Int = #line
) async -> Result<Success, Failure> {
  let finished = Gate()
  // bounded: this timer is the bound
  DispatchQueue.global().asyncAfter(deadline: .now() + helperTimeout.seconds) {
    if !finished.isOpen {
      fatalError(
        "\(fileID):\(line): \(caller): the awaited task did not finish within \(helperTimeout)")
    }
  }
  let result = await task.result
  finished.open()
  return result
}

/// The task's value, awaited for at most ``helperTimeout`` (see ``result(of:caller:fileID:line:)``).
public func value<Success: Sendable>(
  of task: Task<Success, Never>, caller: String = #function, fileID: String = #fileID,
  line: Int = #line
) async -> Success {
  await result(of: task, caller: caller, fileID: fileID, line: line).get()
}

/// The task's value or error, awaited for at most ``helperTimeout`` (see
/// ``result(of:caller:fileID:line:)``).
public func value<Success: Sendable, Failure: Error>(
  of task: Task<Success, Failure>, caller: String = #function, fileID: String = #fileID,
  line: Int = #line
) async throws(Failure) -> Success {
  try await result(of: task, caller: caller, fileID: fileID, line: line).get()
}
