import Foundation
import TinyInternals

/// Runs a woken sleeper's task, and the work it sets off, until all of it is suspended or done:
/// how a ``ManualClock`` knows that what it woke has settled.
///
/// While a settle runs, the runtime's global-enqueue hook is ours. A job counts in a settle when
/// the wake enqueued it, when one of the settle's jobs did, or when the main queue did (it then
/// counts in every settle under way: it may be any of theirs); every other job goes on to the
/// hook that was there before, or to the runtime. A settle runs its jobs one at a time on its
/// queue with itself as their task executor, so that their `Task.yield()`s come back to it.
///
/// When none is left, it sends a round through the main queue, behind what its work queued for
/// the main actor, and it is over when a round finds no new job. A round that the main queue
/// has not run within a second, in which the main queue enqueued no job either (its thread is
/// blocked), ends the settle all the same, with one line on standard error per `advance`: a
/// settle never waits for the main queue without bound. (No public hook tells when a task goes
/// to the main actor, so a settle cannot skip the round for work that stays off it.)
///
/// A runtime hook is acceptable here only because only tests call `advance` and `run`, it is in
/// only while a settle runs, and the last settle puts back exactly the hook it found (unless
/// someone put in another since).
final class Settler: Sendable {
  private struct State: Sendable {
    /// Jobs queued or running, plus the woken task's hold, or a main-queue round under way.
    var pending = 0
    /// Whether a job was counted since the last main-queue round began.
    var isDirty = false
    /// Called once the settle is over; `nil` when none is under way.
    var whenSettled: (@Sendable () -> Void)?
    /// When the woken work's deadline was, to name it in a message.
    var wokenAt = Duration.zero
    /// The main-queue round whose hold is in `pending`, by number, and how many were sent.
    var mainRound: UInt64?
    var roundsSent: UInt64 = 0
    /// A round the main queue has not run yet, though its settle stopped waiting for it: the
    /// main queue has not run since it was sent, so a new round would not run either.
    var unrunRound: UInt64?
    /// Whether the main queue enqueued a job since the round was sent: it runs, slowly.
    var mainQueueRuns = false
    /// Whether the current `advance` has written its line about the main queue.
    var hasReported = false

    /// Ends the settle: hands back what to call, and no job counts in it any more.
    mutating func finish() -> @Sendable () -> Void {
      defer { whenSettled = nil }
      return whenSettled ?? {}
    }

    /// The line to write about the main queue, once per `advance`.
    mutating func report() -> String? {
      guard !hasReported else { return nil }
      hasReported = true
      return "ManualClock.advance: stopped following the work woken at +\(wokenAt) after "
        + "\(Settler.mainQueueWait): the main queue did not run, so what that work sent to the "
        + "main actor could not run (is the main thread blocked?); advance returns without it: "
        + "await that work's task before checking what it did\n"
    }
  }

  /// The longest a settle waits for the main queue to run a round.
  static let mainQueueWait = Duration.seconds(1)

  private let state = Locked(State())
  let queue: DispatchQueue

  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  /// Whether settling works here: the runtime has the hook, and jobs can run on a task executor.
  static var isAvailable: Bool { EnqueueHook.variable != nil }

  /// Whether the calling code runs a job that counts in this settle.
  var isCurrent: Bool { EnqueueHook.running?.contains { $0 === self } ?? false }

  /// The settler's name in the per-thread claims: its address.
  var id: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

  /// Begins an `advance` (or a `run`): its first settle that cannot follow work to the main
  /// queue says so on standard error.
  func beginAdvance() {
    state.withLock { $0.hasReported = false }
  }

  /// Calls `wake`, follows the work it sets off, and calls `whenSettled` once it is over. The
  /// woken task holds the settle open until it calls `release()`. `wokenAt` names the work in
  /// the message of a settle that cannot follow it to the main queue.
  func settle(
    waking wake: () -> Void, wokenAt: Duration, whenSettled: @escaping @Sendable () -> Void
  ) {
    state.withLock { state in
      (state.pending, state.isDirty) = (1, Self.isAvailable)
      (state.whenSettled, state.wokenAt, state.mainRound) = (whenSettled, wokenAt, nil)
    }
    guard Self.isAvailable else { return wake() }
    EnqueueHook.begin(self)
    claimNextEnqueue()
    wake()
    EnqueueHook.claim(nil)
  }

  /// Makes the next job that the calling thread enqueues count in this settle.
  func claimNextEnqueue() { EnqueueHook.claim(id) }

  /// Runs `body` with what it enqueues counting in no settle.
  static func unfollowed<T>(_ body: () throws -> T) rethrows -> T {
    EnqueueHook.claim(EnqueueHook.nobody)
    defer { EnqueueHook.claim(nil) }
    return try body()
  }

  /// Counts one more job, which the main queue enqueued or not; `false` when no settle is under
  /// way.
  func count(fromMainQueue: Bool) -> Bool {
    state.withLock { state in
      guard state.whenSettled != nil else { return false }
      (state.pending, state.isDirty) = (state.pending + 1, true)
      if fromMainQueue { state.mainQueueRuns = true }
      return true
    }
  }

  /// Ends a hold on the settle: a job's, the woken task's, or a main-queue round's.
  func release() {
    enum Next { case wait, mainRound(UInt64), settled(@Sendable () -> Void, report: String?) }
    let next = state.withLock { state -> Next in
      state.pending -= 1
      guard state.pending == 0, state.whenSettled != nil else { return .wait }
      guard state.isDirty else { return .settled(state.finish(), report: nil) }
      guard state.unrunRound == nil else {
        // The main queue has not run since a round that a settle gave up on: neither would it
        // run this one.
        return .settled(state.finish(), report: state.report())
      }
      state.roundsSent += 1
      (state.pending, state.isDirty, state.mainQueueRuns) = (1, false, false)
      (state.mainRound, state.unrunRound) = (state.roundsSent, state.roundsSent)
      return .mainRound(state.roundsSent)
    }
    switch next {
    case .wait: break
    case .mainRound(let round):
      DispatchQueue.main.async { self.mainQueueRan(round) }
      waitForMainQueue(round)
    case .settled(let whenSettled, let report):
      if let report { FileHandle.standardError.write(Data(report.utf8)) }
      EnqueueHook.end(self)
      Self.unfollowed(whenSettled)
    }
  }

  /// The main queue ran `round`, and so everything queued on it before: the round's hold ends,
  /// unless its settle stopped waiting for it.
  private func mainQueueRan(_ round: UInt64) {
    let holds = state.withLock { state -> Bool in
      if let unrun = state.unrunRound, unrun <= round { state.unrunRound = nil }
      guard state.mainRound == round else { return false }
      state.mainRound = nil
      return true
    }
    if holds { release() }
  }

  /// `mainQueueWait` after `round` was sent: unless the main queue has run it, or shown since
  /// that it runs (then the wait goes on), the settle stops waiting for it, and says so.
  private func mainQueueTimedOut(_ round: UInt64) {
    enum Next { case done, waitMore, stop(report: String?) }
    let next = state.withLock { state -> Next in
      guard state.mainRound == round else { return .done }
      if state.mainQueueRuns {
        state.mainQueueRuns = false
        return .waitMore
      }
      state.mainRound = nil
      return .stop(report: state.report())
    }
    switch next {
    case .done: break
    case .waitMore: waitForMainQueue(round)
    case .stop(let report):
      if let report { FileHandle.standardError.write(Data(report.utf8)) }
      release()
    }
  }

  /// Checks on `round` once `mainQueueWait` has passed.
  private func waitForMainQueue(_ round: UInt64) {
    DispatchQueue.global().asyncAfter(deadline: .now() + Self.mainQueueWait.seconds) {
      self.mainQueueTimedOut(round)
    }
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension Settler: TaskExecutor {
  /// Takes what the settle's jobs enqueue on their task executor (a `Task.yield()`).
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if EnqueueHook.take(job, for: EnqueueHook.running ?? [self]) { return }
    // No settle is under way any more: run it as the global executor would.
    DispatchQueue.global().async {
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
  }
}
