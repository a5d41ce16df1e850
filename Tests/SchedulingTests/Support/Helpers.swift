import Foundation
import Testing
import TinyScheduling
import TinyTestSupport
import TinyWaiting

/// One step of a script that drives a limiter or a debouncer through a fake launcher.
///
/// Scripts are written as space-separated tokens: a lowercase word executes an action of that
/// name, `|` fires the launcher once, `C` cancels and `F` flushes.
enum ScriptStep: Equatable {
  case execute(String)
  case tick
  case cancel
  case flush

  /// Parses a script such as `"a b | C c F"`.
  static func parse(_ script: String) -> [ScriptStep] {
    script.split(separator: " ").map { token in
      switch token {
      case "|": .tick
      case "C": .cancel
      case "F": .flush
      default: .execute(String(token))
      }
    }
  }
}

/// A rate limiter or a debouncer: what a script drives.
protocol ScriptTarget: AnyObject {
  func execute(_ action: @escaping @Sendable () -> Void)
  func cancel()
  @discardableResult func flush() -> Bool
}

extension RateLimiter: ScriptTarget {}
extension Debouncer: ScriptTarget {}

/// Runs `script` on `target`, whose launcher is `launcher`, and returns what happened, as
/// tokens: the name of each action when it ran, `|` for a tick that found the launcher active,
/// `-` for one that found it inactive (and did nothing), and `F` / `f` for a flush that did /
/// did not find a kept action.
func run(_ script: String, on target: some ScriptTarget, launcher: FakePeriodicTaskLauncher)
  -> String
{
  let log = Recorder<String>()
  for step in ScriptStep.parse(script) {
    switch step {
    case .execute(let name):
      target.execute { log.record(name) }
    case .tick:
      log.record(launcher.isActive ? "|" : "-")
      launcher.fire()
    case .cancel:
      target.cancel()
    case .flush:
      log.record(target.flush() ? "F" : "f")
    }
  }
  return log.all.joined(separator: " ")
}

/// Records the actions of a stress test: which ran, whether two ever overlapped, and how many
/// ran on the thread that fires the launcher.
// Safe: every stored `var` is only touched under `lock`.
final class StressProbe: @unchecked Sendable {
  private let lock = NSLock()
  private var log: [(thread: Int, index: Int)] = []
  private var running = 0
  private var maxRunning = 0
  private var onFiringThread = 0
  private var firingThread: pthread_t?

  /// Records a run of action `index` of thread `thread`.
  func ran(thread: Int, index: Int) {
    lock.withLock {
      running += 1
      maxRunning = max(maxRunning, running)
      log.append((thread, index))
      if let firingThread, pthread_equal(firingThread, pthread_self()) != 0 {
        onFiringThread += 1
      }
    }
    sched_yield()  // leaves the action "running" long enough for an overlap to be seen
    lock.withLock { running -= 1 }
  }

  /// Marks the calling thread as the one that fires the launcher.
  func markFiringThread() {
    lock.withLock { firingThread = pthread_self() }
  }

  var runs: [(thread: Int, index: Int)] { lock.withLock { log } }
  var maxConcurrentRuns: Int { lock.withLock { maxRunning } }
  var runsOnFiringThread: Int { lock.withLock { onFiringThread } }
}

/// What a stress run saw.
struct StressResult {
  /// Ticks that ran the task while the executing threads were running.
  var ticks = 0
  /// The most actions that ran during one tick.
  var maxActionsPerTick = 0
}

/// The number of executing threads in a stress run.
let stressThreads = 4
/// The number of `execute` calls each thread of a stress run makes (`TINYBLOCKS_FULL_STRESS=1`
/// for the full volume; the forced interleavings in the limiter and debouncer tests, not this
/// volume, are what pin each race).
let stressExecutesPerThread = stressVolume(full: 10_000, quick: 2_000)

/// The stress test shared by the limiter and the debouncer: on a new thread that plays the
/// timer, starts `stressThreads` threads that each call `execute` `stressExecutesPerThread`
/// times (action `index` of thread `thread` records itself in `probe`), and fires `launcher`
/// until they are done; then fires it until it stops, so whatever was kept has run. Each thread
/// waits after its first execute until a fire has run the task, so ticks and executes surely
/// overlap.
func stress(
  probe: StressProbe,
  launcher: FakePeriodicTaskLauncher,
  execute: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
) async -> StressResult {
  await withCheckedContinuation { continuation in
    Thread {
      probe.markFiringThread()
      let finished = Counter()
      let ticked = Gate()
      for thread in 0..<stressThreads {
        Thread {
          for index in 0..<stressExecutesPerThread {
            execute { probe.ran(thread: thread, index: index) }
            if index == 0 { ticked.wait() }
          }
          finished.increment()
        }.start()
      }
      var result = StressResult()
      while finished.value < stressThreads {
        let before = probe.runsOnFiringThread
        if launcher.fire() {
          result.ticks += 1
          if result.ticks == 1 { ticked.open() }
        }
        result.maxActionsPerTick = max(
          result.maxActionsPerTick, probe.runsOnFiringThread - before)
        // Pacing, not synchronisation: a timer that spun a core would starve the real-time tests
        // that run in parallel (under the thread sanitizer, on two cores).
        usleep(20)  // timing: pacing only
      }
      while launcher.fire() {}
      continuation.resume(returning: result)
    }.start()
  }
}

/// Checks what every stress run must show: a tick ran at most one action, no two actions
/// overlapped, the launcher ended inactive, each thread's actions ran in order (only the latest
/// is kept, never an older one), and the last action to run was some thread's last.
func expectStressInvariants(
  _ result: StressResult, probe: StressProbe, launcher: FakePeriodicTaskLauncher,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(result.ticks > 0, sourceLocation: sourceLocation)
  #expect(result.maxActionsPerTick <= 1, sourceLocation: sourceLocation)
  #expect(probe.maxConcurrentRuns == 1, sourceLocation: sourceLocation)
  #expect(!launcher.isActive, sourceLocation: sourceLocation)
  let runs = probe.runs
  for thread in 0..<stressThreads {
    let indices = runs.filter { $0.thread == thread }.map(\.index)
    #expect(indices == indices.sorted(), sourceLocation: sourceLocation)
    #expect(Set(indices).count == indices.count, sourceLocation: sourceLocation)
  }
  #expect(runs.last?.index == stressExecutesPerThread - 1, sourceLocation: sourceLocation)
}

/// Returns once a plain Dispatch timer on `queue` has ticked `ticks` times at `interval`: by
/// then at least that much time has passed, and every block `queue` had to run before those
/// ticks has run. It lets a test state that something did *not* happen over a span of real
/// time, independently of the launcher under test.
func witnessTicks(_ ticks: Int, every interval: Duration, on queue: DispatchQueue) async {
  let ticked = Waiter(count: ticks)
  let timer = DispatchSource.makeTimerSource(queue: queue)
  let nanoseconds =
    Int(interval.components.attoseconds / 1_000_000_000)
    + Int(interval.components.seconds) * 1_000_000_000
  timer.setEventHandler { ticked.finish() }
  timer.schedule(
    deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
  timer.resume()
  #expect(await ticked.wait(timeout: helperTimeout), "the witness timer ticked \(ticks) times")
  timer.cancel()
}
