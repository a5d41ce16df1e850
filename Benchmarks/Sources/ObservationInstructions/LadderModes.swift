// The modes of the two ladders (see main.swift's header), and the real atom beside them.

import Dispatch
import ObservationFloor
import Synchronization
import TinyObservation

/// Runs a mode of the set ladder, or the real atom's set; returns `false` for another mode.
func runSet(_ mode: String, _ count: Int) -> Bool {
  let total = Total()
  let watcherCount = watchers(mode)
  let handler: @Sendable (Change) -> Void = { total.value &+= $0.new &- $0.old }
  switch mode {
  case "floor1", "floor10":
    let floor = LockAndClosures()
    for _ in 0..<watcherCount { floor.add { old, new in total.value &+= new &- old } }
    for value in 0..<count { set(floor, value) }
  case "flagged1", "flagged10":
    let stage = FlaggedStage()
    for _ in 0..<watcherCount { stage.watch { old, new in total.value &+= new &- old } }
    for value in 0..<count { set(stage, value) }
  case "recorded1", "recorded10":
    let stage = RecordedStage()
    for _ in 0..<watcherCount { stage.watch(handler) }
    for value in 0..<count { set(stage, value) }
  case "serial1", "serial10":
    let stage = Stage<LockedTurn>()
    for _ in 0..<watcherCount { stage.watch(handler) }
    for value in 0..<count { setNested(stage, value) }
  case "nonnesting1", "nonnesting10":
    let stage = Stage<LockedTurn>()
    for _ in 0..<watcherCount { stage.watch(handler) }
    for value in 0..<count { set(stage, value) }
  case "atomicturn1", "atomicturn10":
    let stage = Stage<AtomicTurn>()
    for _ in 0..<watcherCount { stage.watch(handler) }
    for value in 0..<count { set(stage, value) }
  case "set1", "set10":
    let atom = Atom(0)
    let tokens = (0..<watcherCount).map { _ in
      atom.watch { total.value &+= $0.new &- $0.old }
    }
    withExtendedLifetime(tokens) { for value in 0..<count { set(atom, value) } }
  default: return false
  }
  check(total, count, perSet: watcherCount, mode)
  return true
}

/// Runs a mode of the derived ladder, or the real derived atom's; returns `false` for another
/// mode.
func runDerived(_ mode: String, _ count: Int) -> Bool {
  let total = Total()
  let handler: @Sendable (Change) -> Void = { total.value &+= $0.new &- $0.old }
  switch mode {
  case "floor2":
    let stage = LockAndClosures()
    stage.add { old, new in total.value &+= new &- old }
    let source = LockAndClosures()
    source.add { _, new in stage.set(new &* 2) }
    for value in 0..<count { set(source, value) }
  case "derivedstages":
    let stages = DerivedStages<LockedTurn>(.stages, handler)
    for value in 0..<count { setNested(stages.source, value) }
  case "derivedordered":
    let stages = DerivedStages<LockedTurn>(.ordered, handler)
    for value in 0..<count { setNested(stages.source, value) }
  case "derivednonnesting":
    let stages = DerivedStages<LockedTurn>(.nonNesting, handler)
    for value in 0..<count { set(stages.source, value) }
  case "derivedatomicturn":
    let stages = DerivedStages<AtomicTurn>(.nonNesting, handler)
    for value in 0..<count { set(stages.source, value) }
  case "derived":
    let atom = Atom(0)
    let doubled = DerivedAtom(atom) { $0 &* 2 }
    let token = doubled.watch { total.value &+= $0.new &- $0.old }
    withExtendedLifetime(token) { for value in 0..<count { set(atom, value) } }
  default: return false
  }
  check(total, count, perSet: 2, mode)
  return true
}

/// Checks the top rungs with 4 threads setting at once (mode `stress`): every change reaches the
/// watcher one at a time, in the order the changes took effect (each change's `old` is the `new`
/// of the one before), and the derived value ends as the source's last value doubled.
func stress(_ count: Int) {
  func check<Turn: TurnRule & ~Copyable>(_: Turn.Type) {
    let seen = Mutex((last: 0, isInside: false, delivered: 0))
    let stages = DerivedStages<Turn>(.nonNesting) { change in
      seen.withLock {
        precondition(!$0.isInside && $0.last == change.old, "\(Turn.self): overlap or disorder")
        $0.isInside = true
      }
      seen.withLock {
        $0 = (change.new, false, $0.delivered + 1)
      }
    }
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for step in 1...count { stages.source.set(thread * count + step) }
    }
    let source = stages.source.state.withLock { $0.core.value }
    let derived = stages.derived.state.withLock { $0.core.value }
    let last = seen.withLock { $0.last }
    precondition(derived == source &* 2 && last == derived, "\(Turn.self): not the last value")
    print(Turn.self, "derived changes delivered:", seen.withLock { $0.delivered })
  }
  check(LockedTurn.self)
  check(AtomicTurn.self)
}
