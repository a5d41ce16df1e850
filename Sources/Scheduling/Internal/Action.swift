/// A user's action as a ``RateLimiter`` or a ``Debouncer`` keeps it, and how it runs.
///
/// A synchronous action runs on the thread that runs it, as the limiters always did. An
/// asynchronous one runs in a task, which calls `finished` when the action returns, so that
/// the limiter lets the next action run only then. With a clock launcher, each action also has
/// a ``Carrier``: a task made by the `execute` that passed the action, in which the action runs
/// whenever it runs later, so that it reads that code's task-local values.
struct Action: Sendable {
  /// The action, when it is synchronous: then it may run on the calling thread.
  private let sync: (@Sendable () -> Void)?
  /// The action and then `finished`: what a task runs.
  private let inTask: @Sendable () async -> Void
  private let carrier: Carrier?

  /// Wraps an action; with `carried`, makes its carrier, a task that inherits the caller's
  /// task-local values. `finished` is called when an action that ran in a task returns.
  init(
    sync: (@Sendable () -> Void)?, async: @escaping @Sendable () async -> Void, carried: Bool,
    finished: @escaping @Sendable () -> Void
  ) {
    self.sync = sync
    let inTask: @Sendable () async -> Void = {
      await async()
      finished()
    }
    self.inTask = inTask
    carrier = carried ? Carrier() : nil
  }

  /// Runs the action and returns `true` when it is synchronous and either runs `here` (inside
  /// the user's own call) or has no carrier; otherwise starts it and returns `false`, and
  /// `finished` is called when it returns. It starts in its carrier when it runs later (from a
  /// tick, or after another action), or else in a new task started here (see `startTask`).
  func run(here: Bool) -> Bool {
    if let sync, here || carrier == nil {
      sync()  // an unused carrier ends, without running it, when the action is released
      return true
    }
    if let carrier, !here {
      carrier.start(inTask)
    } else {
      startTask(inTask)
    }
    return false
  }
}

/// A task, made where an action was passed to `execute`, that waits to run it: it inherits the
/// task-local values of the code that made it (as every unstructured task does), runs the
/// action that ``start(_:)`` hands it, and ends without running anything once the carrier is
/// released without a start (the action was replaced, cancelled, or ran in the user's own call).
///
/// The task holds nothing of the action until it is started: a dropped action is released by
/// the call that dropped it, not later by the task, on another thread.
final class Carrier: Sendable {
  private let go: AsyncStream<@Sendable () async -> Void>.Continuation

  init() {
    let (signal, go) = AsyncStream<@Sendable () async -> Void>.makeStream()
    self.go = go
    startTask {
      for await work in signal { await work() }  // at most one element
    }
  }

  deinit {
    go.finish()  // the task ends: at once, or after the action if it was started
  }

  /// Hands the task `work` to run.
  func start(_ work: @escaping @Sendable () async -> Void) {
    go.yield(work)
  }
}

/// Starts `work` in a new task that inherits the caller's task-local values and priority.
///
/// Where the runtime offers immediate tasks (Linux, and Apple platforms from the 26 releases),
/// the task runs on the calling thread until it first suspends: a carrier is then waiting, and
/// a launcher's task asleep on its clock, before the call that made them returns, so that the
/// tick that wakes them is what sets them off (a manual clock's `advance` waits for work it
/// sets off). Elsewhere the task starts on the global executor.
@discardableResult
func startTask(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
  if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    return Task.immediate { await work() }
  }
  return Task { await work() }
}
