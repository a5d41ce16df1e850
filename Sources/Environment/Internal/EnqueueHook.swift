import Foundation
import TinyInternals

/// The runtime's global-enqueue hook while a ``Settler`` settles (ours), and what each thread
/// has claimed.
enum EnqueueHook {
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
    let fromMainQueue = MainQueue.isCurrent
    let followers = Followers(settlers: settlers.filter { $0.count(fromMainQueue: fromMainQueue) })
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
final class Followers: Sendable {
  let settlers: [Settler]
  init(settlers: [Settler]) { self.settlers = settlers }
}
