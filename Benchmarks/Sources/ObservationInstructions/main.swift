// Instruction counts and times of TinyObservation's update, set and derived set, beside the same
// work written by hand: the floors, and the stand-ins (StandIns.swift, SetLadder.swift,
// DerivedLadder.swift) that do what the documented guarantees need, one guarantee per rung.
// Each operation is a call into a function that is not inlined, as a benchmark body calls it.
//
//   swift build -c release --product ObservationInstructions
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/ObservationInstructions <mode> 100000
//     (instructions per operation: the total less that of mode `none`, divided by 100,000)
//   .build/release/ObservationInstructions pair <floor:mode> ...
//     (each mode's time over its floor's, the two run in alternating chunks in one process)
//
// Modes:
// - none: the empty program.
// - update: mutex (a `Mutex` increment), minimal (the least an update must do), update
//   (`Atom.update`); mutex2, minimal2, update2: the same made by two threads at once, half the
//   count each (times only).
// - read: mutexread (a `Mutex` read), read (`Atom.value`).
// - set to 1 or 10 watchers (suffix 1 or 10), the ladder of SetLadder.swift: floor1 (rung 0, a
//   lock and an array of closures), flagged1 (+ stop flags), recorded1 (+ the change record,
//   version, layers and Observation checks), serial1 (+ serial delivery), nonnesting1 (+ no
//   nesting: the guarantees of `Atom.set`), atomicturn1 (nonnesting1 with the turn ended by a
//   compare-and-swap); set1 (`Atom.set`).
// - set through a derived value to one watcher, the ladder of DerivedLadder.swift: floor2 (two
//   floor stages), derivedstages (+ the set guarantees of serial1 on both), derivedordered (+
//   the derived value's ordering), derivednonnesting (+ no nesting: the guarantees of a set
//   through a `DerivedAtom`), derivedatomicturn (derivednonnesting with the turns ended by a
//   compare-and-swap); derived (`Atom.set` through a `DerivedAtom`).
//
// Every set mode checks the total its handlers added, so that no rung skips a delivery; mode
// `stress` checks the top rungs' order with 4 threads setting at once.

import Dispatch
import Foundation
import InstructionsSupport
import ObservationFloor
import Synchronization
import TinyObservation

/// Keeps a result alive without printing it.
@inline(never) func use(_ value: Int) {
  if value == -42 { print(value) }
}

/// Where handlers add what they receive; the program uses one thread.
final class Total: @unchecked Sendable {  // safe: one thread
  var value = 0
}

@inline(never) func increment(_ mutex: borrowing Mutex<Int>) -> Int {
  mutex.withLock {
    $0 += 1
    return $0
  }
}
@inline(never) func increment(_ atom: MinimalAtom) -> Int { atom.update { $0 += 1 } }
@inline(never) func increment(_ atom: Atom<Int>) -> Int { atom.update { $0 += 1 } }
@inline(never) func set(_ atom: Atom<Int>, _ value: Int) { atom.set(value) }
@inline(never) func set(_ floor: LockAndClosures, _ value: Int) { floor.set(value) }
@inline(never) func set(_ stage: FlaggedStage, _ value: Int) { stage.set(value) }
@inline(never) func set(_ stage: RecordedStage, _ value: Int) { stage.set(value) }
@inline(never) func setNested(_ stage: Stage<LockedTurn>, _ value: Int) { stage.setNested(value) }
@inline(never) func set(_ stage: Stage<LockedTurn>, _ value: Int) { stage.set(value) }
@inline(never) func set(_ stage: Stage<AtomicTurn>, _ value: Int) { stage.set(value) }
@inline(never) func read(_ mutex: borrowing Mutex<Int>) -> Int { mutex.withLock { $0 } }
@inline(never) func read(_ atom: Atom<Int>) -> Int { atom.value }

/// Stops unless the handlers of a set mode added what `count` sets of 0, 1, 2, … deliver:
/// `perSet` for each set after the first, which changes nothing (or shows an equal value).
func check(_ total: Total, _ count: Int, perSet: Int, _ mode: String) {
  precondition(total.value == (count - 1) * perSet, "\(mode): the handlers added \(total.value)")
}

/// The number of watchers a set mode names by its suffix: 10 or 1.
func watchers(_ mode: String) -> Int { mode.hasSuffix("10") ? 10 : 1 }

/// Runs `operation` `count` times in all, half on each of two threads at once.
func onTwoThreads(_ count: Int, _ operation: @Sendable () -> Void) {
  DispatchQueue.concurrentPerform(iterations: 2) { _ in
    for _ in 0..<count / 2 { operation() }
  }
}

@inline(never) func run(_ mode: String, _ count: Int) {
  switch mode {
  case "none": break
  case "mutex":
    let mutex = Mutex(0)
    for _ in 0..<count { use(increment(mutex)) }
  case "minimal":
    let atom = MinimalAtom()
    for _ in 0..<count { use(increment(atom)) }
  case "update":
    let atom = Atom(0)
    for _ in 0..<count { use(increment(atom)) }
  case "mutex2":
    let mutex = Mutex(0)
    onTwoThreads(count) { use(increment(mutex)) }
  case "minimal2":
    let atom = MinimalAtom()
    onTwoThreads(count) { use(increment(atom)) }
  case "update2":
    let atom = Atom(0)
    onTwoThreads(count) { use(increment(atom)) }
  case "mutexread":
    let mutex = Mutex(0)
    for _ in 0..<count { use(read(mutex)) }
  case "read":
    let atom = Atom(0)
    for _ in 0..<count { use(read(atom)) }
  case "stress": stress(count)
  default:
    if !runSet(mode, count) && !runDerived(mode, count) { fatalError("unknown mode \(mode)") }
  }
}

/// Each mode's time over its floor's (`floor:mode`), the two run in alternating chunks of
/// 50,000 operations, 40 of each, so that both see the same machine.
func pair(_ floor: String, _ mode: String) -> Double {
  let clock = ContinuousClock()
  var floorTime = Duration.zero
  var modeTime = Duration.zero
  for round in 0..<40 {
    if round % 2 == 0 { floorTime += clock.measure { run(floor, 50_000) } }
    modeTime += clock.measure { run(mode, 50_000) }
    if round % 2 == 1 { floorTime += clock.measure { run(floor, 50_000) } }
  }
  return modeTime / floorTime
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "pair" {
  for pairing in arguments.dropFirst() {
    let names = pairing.split(separator: ":").map(String.init)
    print(pairing, (pair(names[0], names[1]) * 100).rounded() / 100)
  }
  exit(0)
}
runModes(arguments, usage: "ObservationInstructions <mode[,mode...]> [count] [time]", run)
