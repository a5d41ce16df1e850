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
/// When none is left, it sends a round through the main queue, behind what its work queued for
/// the main actor, and it is over when a round finds no new job.
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
  }

  private let state = Locked(State())
  fileprivate let queue: DispatchQueue

  init(label: String) {
    queue = DispatchQueue(label: label)
  }

  /// Whether settling works here: the runtime has the hook, and jobs can run on a task executor.
  static var isAvailable: Bool { Hook.variable != nil }

  /// Whether the calling code runs a job that counts in this settle.
  var isCurrent: Bool { Hook.running?.contains { $0 === self } ?? false }

  /// The settler's name in the per-thread claims: its address.
  fileprivate var id: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

  /// Calls `wake`, follows the work it sets off, and calls `whenSettled` once it is over. The
  /// woken task holds the settle open until it calls `release()`.
  func settle(waking wake: () -> Void, whenSettled: @escaping @Sendable () -> Void) {
    state.withLock { $0 = State(pending: 1, isDirty: Self.isAvailable, whenSettled: whenSettled) }
    guard Self.isAvailable else { return wake() }
    Hook.begin(self)
    claimNextEnqueue()
    wake()
    Hook.claim(nil)
  }

  /// Makes the next job that the calling thread enqueues count in this settle.
  func claimNextEnqueue() { Hook.claim(id) }

  /// Runs `body` with what it enqueues counting in no settle.
  static func unfollowed<T>(_ body: () throws -> T) rethrows -> T {
    Hook.claim(Hook.nobody)
    defer { Hook.claim(nil) }
    return try body()
  }

  /// Counts one more job; `false` when no settle is under way.
  fileprivate func count() -> Bool {
    state.withLock { state in
      guard state.whenSettled != nil else { return false }
      (state.pending, state.isDirty) = (state.pending + 1, true)
      return true
    }
  }

  /// Ends a hold on the settle: a job's, the woken task's, or a main-queue round's.
  func release() {
    enum Next { case wait, mainRound, settled(@Sendable () -> Void) }
    let next = state.withLock { state -> Next in
      state.pending -= 1
      guard state.pending == 0, let whenSettled = state.whenSettled else { return .wait }
      if state.isDirty {
        (state.pending, state.isDirty) = (1, false)
        return .mainRound
      }
      state.whenSettled = nil
      return .settled(whenSettled)
    }
    switch next {
    case .wait: break
    case .mainRound: DispatchQueue.main.async { self.release() }
    case .settled(let whenSettled):
      Hook.end(self)
      Self.unfollowed(whenSettled)
    }
  }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension Settler: TaskExecutor {
  /// Takes what the settle's jobs enqueue on their task executor (a `Task.yield()`).
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    if Hook.take(job, for: Hook.running ?? [self]) { return }
    // No settle is under way any more: run it as the global executor would.
    DispatchQueue.global().async {
      job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
    }
  }
}

/// Our global-enqueue hook, and what each thread has claimed.
private enum Hook {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Function = @convention(thin) (UnownedJob, Original) -> Void

  /// The address of the runtime's hook variable (a function pointer, handled as its bits), where
  /// the runtime has one and jobs can run on a task executor.
  static let variable: UInt? = {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *),
      let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook")
    else { return nil }
    return UInt(bitPattern: symbol)
  }()
  static var pointer: UnsafeMutablePointer<UInt>? { variable.flatMap(UnsafeMutablePointer.init) }
  static let ours = unsafeBitCast({ enqueue($0, $1) } as Function, to: UInt.self)

  /// The hook found when ours went in (0 for none), and the settles under way.
  static let state = Locked((previous: UInt(0), settling: [Settler]()))

  static func begin(_ settler: Settler) {
    state.withLock { state in
      if state.settling.isEmpty, let hook = pointer {
        (state.previous, hook.pointee) = (hook.pointee, ours)
      }
      state.settling.append(settler)
    }
  }

  static func end(_ settler: Settler) {
    state.withLock { state in
      state.settling.removeAll { $0 === settler }
      // Put back what was there, unless someone has put in a hook of their own since.
      guard state.settling.isEmpty, let hook = pointer, hook.pointee == ours else { return }
      hook.pointee = state.previous
    }
  }

  /// Per thread: the settler that its next enqueued job counts in (`nobody`: none), and the
  /// settlers of the job it runs (unretained: the run holds them).
  static let (claimKey, runningKey) = {
    var keys = (pthread_key_t(), pthread_key_t())
    (_, _) = (pthread_key_create(&keys.0, nil), pthread_key_create(&keys.1, nil))
    return keys
  }()
  static let nobody: UInt = 1

  static func claim(_ id: UInt?) {
    pthread_setspecific(claimKey, id.flatMap { UnsafeRawPointer(bitPattern: $0) })
  }

  static var running: [Settler]? {
    pthread_getspecific(runningKey).map {
      Unmanaged<Followers>.fromOpaque($0).takeUnretainedValue().settlers
    }
  }

  /// Every job bound for the global executor comes here while our hook is in.
  static func enqueue(_ job: UnownedJob, _ original: Original) {
    let claimed = UInt(bitPattern: pthread_getspecific(claimKey))
    if claimed > nobody { claim(nil) }  // a claim counts once
    let (previous, settling) = state.withLock { $0 }
    if take(job, for: followers(claimed: claimed, among: settling)) { return }
    if previous != 0 { return unsafeBitCast(previous, to: Function.self)(job, original) }
    original(job)
  }

  /// The settles that a job enqueued by the calling thread counts in.
  static func followers(claimed: UInt, among settling: [Settler]) -> [Settler] {
    if claimed != 0 { return settling.filter { $0.id == claimed } }
    if let running { return running }
    return MainQueue.isCurrent ? settling : []
  }

  /// Runs `job` on the queue of the first of `settlers` still settling, counted in each of
  /// them; `false` when none is.
  static func take(_ job: UnownedJob, for settlers: [Settler]) -> Bool {
    let followers = Followers(settlers: settlers.filter { $0.count() })
    guard let first = followers.settlers.first else { return false }
    first.queue.async {
      pthread_setspecific(runningKey, Unmanaged.passUnretained(followers).toOpaque())
      if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        job.runSynchronously(on: first.asUnownedTaskExecutor())
      }
      pthread_setspecific(runningKey, nil)
      for settler in followers.settlers { settler.release() }
    }
    return true
  }
}

/// The settles that a job counts in.
private final class Followers: Sendable {
  let settlers: [Settler]
  init(settlers: [Settler]) { self.settlers = settlers }
}
