import Foundation
import TinyInternals

/// Runs a woken sleeper's task, and the work it sets off, until all of it is suspended or done,
/// so that a `ManualClock` knows when a woken task has settled.
///
/// **How.** The runtime sends every job bound for the global concurrent executor through one
/// hook (`swift_task_enqueueGlobal_hook`). A `Settler` installs a hook that passes every job on
/// unchanged, except:
///
/// - the next job of a task that asked to be claimed (`claim(task:)`): the woken sleeper, once
///   it yields from inside `ManualClock.sleep`;
/// - any job enqueued *by code running on a settler's queue*: the tasks the woken task starts,
///   the continuations it resumes, its own later turns.
///
/// Claimed jobs run one at a time on the settler's serial queue. When the queue has no job left,
/// every piece of that work is suspended somewhere (on the clock again, on another executor, on
/// something that has not happened yet) or finished: the settle is over.
///
/// Jobs bound for an actor (the main actor included) do not pass through the hook: such work
/// runs on its actor, in that actor's order, after the settle.
final class Settler: Sendable {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

  /// The serial queue claimed jobs run on.
  private let queue: DispatchQueue
  private let key = DispatchSpecificKey<ObjectIdentifier>()

  /// What the lock guards.
  private struct State: Sendable {
    /// Claimed jobs queued or running.
    var pending = 0
    /// Called when `pending` drops to zero.
    var whenIdle: (@Sendable () -> Void)?
  }

  private let state = Locked(State())

  init(label: String) {
    queue = DispatchQueue(label: label)
    queue.setSpecific(key: key, value: ObjectIdentifier(self))
  }

  /// Whether the calling code runs on this settler's queue (inside a claimed job).
  var isCurrent: Bool {
    DispatchQueue.getSpecific(key: key) == ObjectIdentifier(self)
  }

  /// Starts a settle: `whenIdle` runs once no claimed job is queued or running, after at least
  /// one job was claimed or `release()` was called.
  func begin(whenIdle: @escaping @Sendable () -> Void) {
    state.withLock {
      $0.pending = 1  // the settle itself, until the woken task reports in
      $0.whenIdle = whenIdle
    }
  }

  /// Ends the settle's own hold on it (the woken task has been claimed, or could not be).
  func release() {
    finishedOne()
  }

  /// Queues `job` on this settler and counts it.
  fileprivate func take(_ job: UnownedJob) {
    state.withLock { $0.pending += 1 }
    queue.async {
      Self.run(job)
      self.finishedOne()
    }
  }

  private func finishedOne() {
    let idle = state.withLock { state -> (@Sendable () -> Void)? in
      state.pending -= 1
      guard state.pending == 0 else { return nil }
      defer { state.whenIdle = nil }
      return state.whenIdle
    }
    idle?()
  }

  /// Runs a job taken from the global executor as the global executor would.
  private static func run(_ job: UnownedJob) {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
  }
}

extension Settler {
  /// Whether claimed jobs can run on a settler here: the runtime exposes the hook and can run
  /// a job on the global executor's behalf. When not, a `ManualClock` settles less (see its
  /// documentation).
  static var isAvailable: Bool {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return false }
    return Claims.shared.isInstalled
  }

  /// Asks for the calling task's next job on the global executor to run on `settler`.
  static func claim(task: UInt, for settler: Settler) {
    Claims.shared.state.withLock { $0.tasks[task] = settler }
  }

  /// Withdraws a claim that was not taken (the task did not come through the hook).
  static func unclaim(task: UInt) -> Bool {
    Claims.shared.state.withLock { $0.tasks.removeValue(forKey: task) != nil }
  }

  /// The settler whose queue the calling code runs on, if any.
  static var current: Settler? {
    Claims.shared.state.withLock { state in state.active.first { $0.isCurrent } }
  }

  /// Makes `settler` take the jobs enqueued from its queue, until `deactivate`.
  static func activate(_ settler: Settler) {
    Claims.shared.state.withLock { $0.active.append(settler) }
  }

  static func deactivate(_ settler: Settler) {
    Claims.shared.state.withLock { $0.active.removeAll { $0 === settler } }
  }
}

/// The process's claims, and the hook that honours them.
private final class Claims: Sendable {
  static let shared = Claims()

  struct State: Sendable {
    /// Tasks whose next global job goes to a settler, by the task's address.
    var tasks: [UInt: Settler] = [:]
    /// Settlers taking the jobs enqueued from their own queue.
    var active: [Settler] = []
  }

  let state = Locked(State())

  /// The hook that was installed before ours, called for every job we do not take.
  let previous: Settler.Hook?

  /// Whether our hook is in place.
  let isInstalled: Bool

  private init() {
    guard let handle = dlopen(nil, RTLD_NOW),
      let symbol = dlsym(handle, "swift_task_enqueueGlobal_hook")
    else {
      previous = nil
      isInstalled = false
      return
    }
    let hook = symbol.assumingMemoryBound(to: Settler.Hook?.self)
    previous = hook.pointee
    isInstalled = true
    // A job enqueued on another thread from here on waits for this initializer to finish
    // before it reads `shared`.
    hook.pointee = { job, original in Claims.enqueue(job, original) }
  }

  /// Every job bound for the global executor comes through here once the hook is installed.
  static func enqueue(_ job: UnownedJob, _ original: Settler.Original) {
    let address = unsafeBitCast(job, to: UInt.self)
    let settler = shared.state.withLock { state -> Settler? in
      if state.tasks.isEmpty && state.active.isEmpty { return nil }
      if let claimed = state.tasks.removeValue(forKey: address) { return claimed }
      return state.active.first { $0.isCurrent }
    }
    if let settler {
      settler.take(job)
    } else if let previous = shared.previous {
      previous(job, original)
    } else {
      original(job)
    }
  }
}
