import Foundation
import Testing
import TinyScheduling
import TinyTestSupport

/// A closure that holds the only reference to an object whose `deinit` runs `onDeinit`: the
/// moment whoever stores the closure drops it, `onDeinit` runs. `body` is what the closure does
/// when called.
func droppable(
  onDeinit: @escaping @Sendable () -> Void, body: @escaping @Sendable () -> Void = {}
) -> @Sendable () -> Void {
  let marker = OnDeinit(onDeinit)
  return {
    withExtendedLifetime(marker) { body() }
  }
}

/// A call a `deinit` makes on the limiter or the debouncer that dropped it.
enum LimiterCall: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case execute, cancel, flush

  var testDescription: String { rawValue }

  /// Makes the call on `target`, recording what it returned (`flushed` / `not flushed`) and,
  /// for `execute`, an action that records `d` when it runs.
  func make(on target: some ScriptTarget, log: Recorder<String>) {
    switch self {
    case .execute: target.execute { log.record("d") }
    case .cancel: target.cancel()
    case .flush: log.record(target.flush() ? "flushed" : "not flushed")
    }
  }
}

/// How a limiter or a debouncer drops an action without running it.
enum LimiterDrop: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// A newer `execute` replaces it.
  case replaced
  /// `cancel()` drops it.
  case cancelled
  /// It waits for the running action (a flush or a quiescent execute from inside an action),
  /// and `cancel()` drops it.
  case waitingCancelled

  var testDescription: String { rawValue }
}

/// A call on a launcher, made from the `deinit` of a task the launcher dropped.
enum LauncherReentry: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case every, start, stop, isActive

  var testDescription: String { rawValue }

  func make(on launcher: some PeriodicTaskLauncher, log: Recorder<String>) {
    switch self {
    case .every: launcher.every(.seconds(3_600)) { log.record("d") }
    case .start: launcher.start()
    case .stop: launcher.stop()
    case .isActive: log.record(launcher.isActive ? "active" : "inactive")
    }
  }
}

/// A launcher of the test's own: it records its calls and can run a hook inside `start()` and
/// `stop()` (to call back into the limiter, or to hold the call on a gate), outside its lock.
final class ScriptedLauncher: PeriodicTaskLauncher, @unchecked Sendable {
  // @unchecked: every stored `var` is only touched with `lock` held.
  private let lock = NSLock()
  private var task: (@Sendable () -> Void)?
  private var active = false
  private var log: [String] = []
  private var startHook: (@Sendable () -> Void)?
  private var stopHook: (@Sendable () -> Void)?

  /// Runs `hook` inside every later `start()`, after the launcher became active.
  func onStart(_ hook: (@Sendable () -> Void)?) {
    lock.withLock { startHook = hook }
  }

  /// Runs `hook` inside every later `stop()`, after the launcher became inactive.
  func onStop(_ hook: (@Sendable () -> Void)?) {
    lock.withLock { stopHook = hook }
  }

  /// The calls so far: `every`, `start`, `stop`.
  var calls: [String] { lock.withLock { log } }

  func every(_ interval: Duration, launch task: @escaping @Sendable () -> Void) {
    let old = lock.withLock {
      log.append("every")
      defer { self.task = task }
      return self.task
    }
    withExtendedLifetime(old) {}
  }

  var isActive: Bool { lock.withLock { active } }

  func start() {
    let hook = lock.withLock {
      log.append("start")
      active = true
      return startHook
    }
    hook?()
  }

  func stop() {
    let hook = lock.withLock {
      log.append("stop")
      active = false
      return stopHook
    }
    hook?()
  }

  /// Runs the task if active, as a tick would; returns whether it ran.
  @discardableResult
  func fire() -> Bool {
    guard let task = lock.withLock({ active ? self.task : nil }) else { return false }
    task()
    return true
  }
}

/// An action that records `name` and the thread it runs on, then holds that thread until the
/// test opens `finish`: it lets a test act while an action is surely running.
struct HeldAction: Sendable {
  let name: String
  /// Opens when the action has started.
  let running = Gate()
  /// Opened by the test to let the action return.
  let finish = Gate()
  let log: Recorder<String>
  let threads: Recorder<pthread_t>

  init(_ name: String, log: Recorder<String>, threads: Recorder<pthread_t>) {
    self.name = name
    self.log = log
    self.threads = threads
  }

  var action: @Sendable () -> Void {
    { [self] in
      log.record(name)
      threads.record(pthread_self())
      running.open()
      finish.wait()
    }
  }
}

/// An action that records `name` and the thread it runs on.
func recording(_ name: String, log: Recorder<String>, threads: Recorder<pthread_t>)
  -> @Sendable () -> Void
{
  {
    log.record(name)
    threads.record(pthread_self())
  }
}
