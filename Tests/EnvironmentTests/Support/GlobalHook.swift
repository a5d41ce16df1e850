import Foundation
import TinyTestSupport

/// The runtime's global-enqueue hook (`swift_task_enqueueGlobal_hook`), which `ManualClock`
/// uses while it settles, read and written here as other test helpers do.
enum GlobalHook {
  typealias Original = @convention(thin) (UnownedJob) -> Void
  typealias Function = @convention(thin) (UnownedJob, Original) -> Void

  /// The runtime's variable. Only the exit tests of `ManualClockHookTests` touch it, each alone
  /// in its own process.
  nonisolated(unsafe) static let variable = dlsym(
    dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook")!
    .assumingMemoryBound(to: Function?.self)

  /// The hook as bits: 0 when none is installed.
  static var bits: UInt {
    variable.pointee.map { unsafeBitCast($0, to: UInt.self) } ?? 0
  }

  /// A hook of another library, which counts the jobs it is given and passes them on.
  static let counting: Function = { job, original in
    countedJobs.increment()
    original(job)
  }
  static let countedJobs = Counter()

  /// Whether the hook of swift-concurrency-extras' `withMainSerialExecutor` is installed, as that
  /// helper sees it: any hook at all counts as its own.
  static var mainSerialIsInstalled: Bool {
    get { variable.pointee != nil }
    set { variable.pointee = newValue ? { job, _ in MainActor.shared.enqueue(job) } : nil }
  }
}

/// Runs `operation` the way swift-concurrency-extras' `withMainSerialExecutor` does: it reads
/// the hook as a Bool, installs its own hook that sends every global job to the main actor, and
/// afterwards sets the hook back from the Bool.
@MainActor func withMainSerialPattern(
  _ operation: @isolated(any) () async throws -> Void
) async rethrows {
  let wasInstalled = GlobalHook.mainSerialIsInstalled
  defer { GlobalHook.mainSerialIsInstalled = wasInstalled }
  GlobalHook.mainSerialIsInstalled = true
  try await operation()
}
