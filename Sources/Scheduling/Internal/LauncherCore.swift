import TinyInternals

/// What the two real launchers share: the interval, the task, whether it is active, and the
/// grid that ticks, a dispatch timer (``DefaultPeriodicTaskLauncher``) or a task that sleeps on
/// a clock (``ClockPeriodicTaskLauncher``).
///
/// Each grid is numbered. A tick runs the task only while the launcher is active and its grid
/// is the current one, checked under the lock, so no tick starts after `stop()` returns. Grids
/// are started and cancelled after the lock: a clock may be the user's own type.
///
/// A clock's grids tick in turn (``GridTick/runInTurn``): a tick that comes while a tick of the
/// launcher still runs, of this grid or of one that a `stop()` or a new interval replaced, waits
/// for it to end, so that ticks never overlap, asynchronous ones included.
final class LauncherCore: Sendable {
  /// Starts a grid that begins now and calls `tick` at each of its deadlines (until it returns
  /// `false`); returns what cancels it.
  typealias StartGrid = @Sendable (_ interval: Duration, _ tick: GridTick) -> Cancel
  typealias Cancel = @Sendable () -> Void

  /// What a grid calls at each deadline; each returns whether the grid is still the current
  /// one (and so has run the task).
  struct GridTick: Sendable {
    /// Runs a synchronous task where it is called (a dispatch timer's queue).
    let run: @Sendable () -> Bool
    /// Waits until no other tick of the launcher runs, then calls `inTurn` (where a clock's
    /// grid counts the deadlines that passed while it waited) and runs the task, awaiting an
    /// asynchronous one (a clock's grid, in its task).
    let runInTurn: @Sendable (_ inTurn: () -> Void) async -> Bool
  }

  private struct State {
    var interval: Duration?
    var task: LaunchedTask?
    var isActive = false
    var cancelGrid: Cancel?
    /// How many grids have started: a tick of a replaced grid runs nothing.
    var generation: UInt64 = 0
  }

  /// A grid to start after the lock, and the one it replaces, to cancel.
  private struct Grid {
    let generation: UInt64
    let interval: Duration
    let replaced: Cancel?
  }

  /// The launcher's type name, for the message of a bad interval.
  private let name: String
  private let startGrid: StartGrid
  private let state = Locked(State())
  /// Held by the tick that runs, of any grid; the others wait for it, oldest first.
  private let ticking = TaskTurn()

  init(name: String, startGrid: @escaping StartGrid) {
    self.name = name
    self.startGrid = startGrid
  }

  deinit {
    // The task may hold another launcher, whose task holds another, and so on: released
    // through the trampoline, with no lock held, such a chain is freed one after another.
    let (cancelGrid, task) = state.withLock { ($0.cancelGrid.take(), $0.task.take()) }
    cancelGrid?()
    Trampoline.release(consume task)
  }

  func every(_ interval: Duration, launch task: LaunchedTask) {
    guard interval > .zero else {
      fatalError("\(name).every(_:launch:): interval must be positive, got \(interval)")
    }
    let (replaced, grid) = state.withLock { state -> (LaunchedTask?, Grid?) in
      let old = state.task.take()
      state.task = task
      guard state.interval != interval else { return (old, nil) }
      state.interval = interval
      return (old, state.isActive ? newGrid(&state) : nil)
    }
    // After the lock: the old task is the user's closure, and its release may run a `deinit`
    // that calls this launcher.
    withExtendedLifetime(replaced) {}
    if let grid { begin(grid) }
  }

  var isActive: Bool {
    state.withLock { $0.isActive }
  }

  /// How many grids have started: lets the tests tell a grid that was kept from one that
  /// restarted, which no clock reading can do on a busy machine.
  var gridsStarted: UInt64 {
    state.withLock { $0.generation }
  }

  func start() {
    let grid = state.withLock { state -> Grid? in
      guard !state.isActive else { return nil }
      state.isActive = true
      return newGrid(&state)
    }
    if let grid { begin(grid) }
  }

  func stop() {
    let stopped = state.withLock { state -> Cancel? in
      guard state.isActive else { return nil }
      state.isActive = false
      return state.cancelGrid.take()
    }
    stopped?()
  }

  /// Under the lock: numbers a new grid, if there is an interval, and takes out the grid it
  /// replaces.
  private func newGrid(_ state: inout State) -> Grid? {
    guard let interval = state.interval else { return nil }
    state.generation &+= 1
    return Grid(generation: state.generation, interval: interval, replaced: state.cancelGrid.take())
  }

  /// After the lock: cancels the replaced grid and starts the new one, which is kept unless a
  /// `stop()` or another grid came meanwhile (then it is cancelled at once).
  private func begin(_ grid: Grid) {
    grid.replaced?()
    let generation = grid.generation
    let cancel = startGrid(
      grid.interval,
      GridTick(
        run: { [weak self] in self?.tick(of: generation) ?? false },
        runInTurn: { [weak self] inTurn in
          await self?.tickInTurn(of: generation, inTurn: inTurn) ?? false
        }))
    let stale = state.withLock { state -> Cancel? in
      guard state.isActive, state.generation == generation else { return cancel }
      state.cancelGrid = cancel
      return nil
    }
    stale?()
  }

  /// Runs the task, unless the launcher stopped or started another grid since this grid began;
  /// returns whether the grid is still the current one. (Only a clock launcher takes an
  /// asynchronous task, and its grids tick in turn.)
  private func tick(of generation: UInt64) -> Bool {
    let task = currentTask(of: generation)
    if case .sync(let work) = task { work.run() }
    return task != nil
  }

  /// ``tick(of:)`` once no other tick of the launcher runs: the task, asynchronous or not, runs
  /// in turn with the ticks of every grid, after `inTurn`. An asynchronous task runs in a task
  /// of its own, which inherits the grid's task-local values and which cancelling the grid does
  /// not reach: a tick that runs finishes, as on every launcher.
  private func tickInTurn(of generation: UInt64, inTurn: () -> Void) async -> Bool {
    await ticking.take()
    inTurn()
    let task = currentTask(of: generation)
    switch task {
    case .sync(let work): work.run()
    case .async(let work): await startTask(work).value
    case nil: break
    }
    ticking.end()
    return task != nil
  }

  /// The task, if the launcher is active and `generation` is its current grid.
  private func currentTask(of generation: UInt64) -> LaunchedTask? {
    state.withLock { state in
      state.isActive && state.generation == generation ? state.task : nil
    }
  }
}

/// What a launcher runs at each tick: a synchronous task, or, on a clock, an asynchronous one.
enum LaunchedTask: Sendable {
  case sync(Work)
  case async(@Sendable () async -> Void)
}
