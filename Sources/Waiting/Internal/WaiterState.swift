/// What a waiter knows, as a pure state machine: how many `finish()` calls it still expects,
/// when the last one came, and who is waiting.
///
/// It neither locks, blocks nor resumes anything; ``Waiter`` holds it behind a lock and wakes
/// the waits each transition hands back, after unlocking. The types are generic so that tests
/// can drive every transition with plain values.
struct WaiterState<Instant: Comparable, Suspension, Blocking> {
  /// The number of `finish()` calls that finish the waiter.
  let expectedCount: Int
  /// The `finish()` calls so far, extra ones included.
  private(set) var finishCount = 0
  /// When the call that finished the waiter came; `nil` until then.
  private(set) var finishedAt: Instant?
  /// Asynchronous waits, suspended until the waiter finishes, they time out or are cancelled.
  private var suspended: [UInt64: Suspension] = [:]
  /// Synchronous waits, each blocked on its own signal or spinning the main run loop.
  private var blocked: [UInt64: (signal: Blocking, spinsMainRunLoop: Bool)] = [:]
  /// The synchronous waits running their `eachQuantum` now: on which thread, the wait's
  /// deadline, and whether the last `finish()` waits for the run to return.
  private var quanta: [UInt64: (thread: UInt, deadline: Instant, isAwaited: Bool)] = [:]
  /// The identifier the next wait gets.
  private var nextID: UInt64 = 0

  init(expectedCount: Int) {
    self.expectedCount = expectedCount
  }

  /// Whether the expected number of `finish()` calls has come.
  var isFinished: Bool { finishedAt != nil }

  /// Whether a wait with this deadline succeeds: `nil` while the waiter has not finished;
  /// otherwise whether it finished by the deadline (at the deadline itself counts).
  func isInTime(for deadline: Instant) -> Bool? {
    finishedAt.map { Self.isInTime($0, for: deadline) }
  }

  /// Whether a finish at `finish` is in time for a wait with this deadline.
  static func isInTime(_ finish: Instant, for deadline: Instant) -> Bool {
    finish <= deadline
  }

  /// The number of asynchronous waits still suspended.
  var suspendedCount: Int { suspended.count }

  /// The number of synchronous waits in progress.
  var blockedCount: Int { blocked.count }

  /// What a `finish()` call leads to.
  enum Finish {
    /// It counted, and the waiter still expects `remaining` more.
    case counted(remaining: Int)
    /// It was the last expected call: resume these asynchronous waits with `true`, signal these
    /// synchronous ones, wake the main run loop when one of them spins it, then wait for the
    /// `eachQuantum` runs in progress on other threads to return, each at most until its wait's
    /// deadline (one ``endQuantum(_:)`` returns `true` for each).
    case finished(
      suspended: [Suspension], blocked: [Blocking], wakesMainRunLoop: Bool,
      runningQuanta: [Instant])
    /// The waiter had already finished: nothing changes.
    case extra
  }

  /// Counts a `finish()` call that came at `now`, on `thread`.
  mutating func finish(at now: Instant, on thread: UInt) -> Finish {
    finishCount += 1
    if isFinished { return .extra }
    guard finishCount == expectedCount else {
      return .counted(remaining: expectedCount - finishCount)
    }
    finishedAt = now
    defer {
      suspended = [:]
      blocked = [:]
    }
    // A run on the finishing thread is the caller itself (or holds it): it cannot be waited for.
    var runningQuanta: [Instant] = []
    for (id, run) in quanta where run.thread != thread {
      quanta[id]?.isAwaited = true
      runningQuanta.append(run.deadline)
    }
    return .finished(
      suspended: Array(suspended.values),
      blocked: blocked.values.map(\.signal),
      wakesMainRunLoop: blocked.values.contains { $0.spinsMainRunLoop },
      runningQuanta: runningQuanta)
  }

  /// Records that the synchronous wait `id`, on `thread`, is about to run its `eachQuantum`.
  ///
  /// - Returns: `false`, recording nothing, when the waiter has finished: then it must not run.
  mutating func beginQuantum(_ id: UInt64, on thread: UInt, deadline: Instant) -> Bool {
    if isFinished { return false }
    quanta[id] = (thread, deadline, false)
    return true
  }

  /// Records that the `eachQuantum` run of the wait `id` returned.
  ///
  /// - Returns: Whether the last `finish()` waits for this run: then tell it.
  mutating func endQuantum(_ id: UInt64) -> Bool {
    quanta.removeValue(forKey: id)?.isAwaited ?? false
  }

  /// Returns a fresh identifier for a wait.
  mutating func makeID() -> UInt64 {
    defer { nextID += 1 }
    return nextID
  }

  /// Records an asynchronous wait under `id`.
  ///
  /// - Returns: `false`, recording nothing, when the waiter has already finished.
  mutating func suspend(_ suspension: Suspension, id: UInt64) -> Bool {
    if isFinished { return false }
    suspended[id] = suspension
    return true
  }

  /// Changes the asynchronous wait recorded under `id`, if it is still suspended.
  ///
  /// - Returns: `false` when it is no longer suspended.
  mutating func updateSuspended(_ id: UInt64, _ body: (inout Suspension) -> Void) -> Bool {
    guard suspended[id] != nil else { return false }
    body(&suspended[id]!)
    return true
  }

  /// Takes out the asynchronous wait recorded under `id`, to resume it after a timeout or a
  /// cancellation.
  ///
  /// - Returns: The wait, or `nil` when something else resumed it first.
  mutating func resume(_ id: UInt64) -> Suspension? {
    suspended.removeValue(forKey: id)
  }

  /// Records a synchronous wait, woken through `signal`.
  ///
  /// - Returns: Its identifier, or `nil`, recording nothing, when the waiter has finished.
  mutating func block(on signal: Blocking, spinsMainRunLoop: Bool) -> UInt64? {
    if isFinished { return nil }
    let id = makeID()
    blocked[id] = (signal, spinsMainRunLoop)
    return id
  }

  /// Forgets the synchronous wait recorded under `id` (it returned).
  mutating func unblock(_ id: UInt64) {
    blocked[id] = nil
  }
}

extension WaiterState: Sendable where Instant: Sendable, Suspension: Sendable, Blocking: Sendable {}
extension WaiterState.Finish: Sendable
where Instant: Sendable, Suspension: Sendable, Blocking: Sendable {}
