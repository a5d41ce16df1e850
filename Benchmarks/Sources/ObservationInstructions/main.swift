// Instruction counts and times of TinyObservation's update, set and derived set, beside the same
// work written by hand: the floors, and the stand-ins (StandIns.swift) that do the least the
// documented guarantees need. Each operation is a call into a function that is not inlined, as a
// benchmark body calls it.
//
//   swift build -c release --product ObservationInstructions
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/ObservationInstructions <mode> 100000
//     (instructions per operation: the total less that of mode `none`, divided by 100,000)
//   .build/release/ObservationInstructions pair <floor:mode> ...
//     (each mode's time over its floor's, the two run in alternating chunks in one process)
//
// Modes: none; mutex (a `Mutex` increment), minimal (the least an update must do), update
// (`Atom.update`); mutexread, read (`Atom.value`); floor1, floor10 (a lock and an array of
// closures), minimalset1, minimalset10, set1, set10 (`Atom.set` to 1 or 10 watchers); floor2
// (two such stages), minimalderived, derived (a set through a `DerivedAtom` to one watcher);
// mutex2, minimal2, update2: mutex, minimal and update made by two threads at once, half the
// count each (times only).

import Dispatch
import Foundation
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
@inline(never) func set(_ atom: MinimalWatchedAtom, _ value: Int) { atom.set(value) }
@inline(never) func increment(_ atom: Atom<Int>) -> Int { atom.update { $0 += 1 } }
@inline(never) func set(_ atom: Atom<Int>, _ value: Int) { atom.set(value) }
@inline(never) func set(_ floor: LockAndClosures, _ value: Int) { floor.set(value) }
@inline(never) func read(_ mutex: borrowing Mutex<Int>) -> Int { mutex.withLock { $0 } }
@inline(never) func read(_ atom: Atom<Int>) -> Int { atom.value }

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
  case "set1", "set10":
    let atom = Atom(0)
    let total = Total()
    let tokens = (0..<(mode == "set1" ? 1 : 10)).map { _ in
      atom.watch { total.value &+= $0.new &- $0.old }
    }
    withExtendedLifetime(tokens) { for value in 0..<count { set(atom, value) } }
    precondition(total.value > 0, "a watcher did not run")
  case "minimalset1", "minimalset10":
    let atom = MinimalWatchedAtom()
    let total = Total()
    for _ in 0..<(mode == "minimalset1" ? 1 : 10) {
      atom.watch { total.value &+= $0.new &- $0.old }
    }
    for value in 0..<count { set(atom, value) }
    precondition(total.value > 0, "a watcher did not run")
  case "mutexread":
    let mutex = Mutex(0)
    for _ in 0..<count { use(read(mutex)) }
  case "read":
    let atom = Atom(0)
    for _ in 0..<count { use(read(atom)) }
  case "derived":
    let atom = Atom(0)
    let doubled = DerivedAtom(atom) { $0 &* 2 }
    let total = Total()
    let token = doubled.watch { total.value &+= $0.new &- $0.old }
    withExtendedLifetime(token) { for value in 0..<count { set(atom, value) } }
    precondition(total.value > 0, "a watcher did not run")
  case "floor2":
    let total = Total()
    let stage = LockAndClosures()
    stage.add { old, new in total.value &+= new &- old }
    let source = LockAndClosures()
    source.add { _, new in stage.set(new &* 2) }
    for value in 0..<count { set(source, value) }
    precondition(total.value > 0, "a handler did not run")
  case "minimalderived":
    let total = Total()
    let derived = MinimalDerived { total.value &+= $0.new &- $0.old }
    for value in 0..<count { set(derived.source, value) }
    precondition(total.value > 0, "a handler did not run")
  case "mutex2":
    let mutex = Mutex(0)
    onTwoThreads(count) { use(increment(mutex)) }
  case "minimal2":
    let atom = MinimalAtom()
    onTwoThreads(count) { use(increment(atom)) }
  case "update2":
    let atom = Atom(0)
    onTwoThreads(count) { use(increment(atom)) }
  case "floor1", "floor10":
    let floor = LockAndClosures()
    let total = Total()
    for _ in 0..<(mode == "floor1" ? 1 : 10) {
      floor.add { old, new in total.value &+= new &- old }
    }
    for value in 0..<count { set(floor, value) }
    precondition(total.value > 0, "a handler did not run")
  default: fatalError("unknown mode \(mode)")
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
guard let modes = arguments.first else {
  fatalError("usage: ObservationInstructions <mode[,mode...]> [count] [time]")
}
let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
if arguments.count > 2 {
  for mode in modes.split(separator: ",").map(String.init) {
    let clock = ContinuousClock()
    let best = (0..<5).map { _ in clock.measure { run(mode, count) } }.min()!
    print(mode, best / count)
  }
} else {
  run(modes, count)
}
