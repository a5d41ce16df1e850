// Instruction counts and times of TinyObservation's update and set, beside the same work written
// by hand, for Docs/Performance.md. Each operation is a call into a function that is not
// inlined, as a benchmark body calls it.
//
//   swift build -c release --product ObservationInstructions
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/ObservationInstructions <mode> 100000
//     (instructions per operation: the total less that of mode `none`, divided by 100,000)
//   .build/release/ObservationInstructions <mode,mode,...> 3000000 time
//     (the best of five runs, per operation)
//
// Modes: none, mutex (a `Mutex` increment), holder (the same lock plus the holder's thread, as
// TinyBlocks' lock keeps it), minimal (the least an atom's update must do, in StandIns.swift),
// update (`Atom.update`), set1 and set10 (`Atom.set` to 1 or 10 watchers), minimalset1 and
// minimalset10 (the least such a set must do), floor1 and floor10 (a lock and an array of
// closures, the benchmarks' floor); mutex2, holder2, minimal2 and update2 are mutex, holder,
// minimal and update made by two threads at once, half the count each (times only).

import Dispatch
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
@inline(never) func increment(_ lock: HolderLock) -> Int { lock.increment() }
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
  case "holder":
    let lock = HolderLock()
    for _ in 0..<count { use(increment(lock)) }
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
  case "mutex2":
    let mutex = Mutex(0)
    onTwoThreads(count) { use(increment(mutex)) }
  case "holder2":
    let lock = HolderLock()
    onTwoThreads(count) { use(increment(lock)) }
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

let arguments = Array(CommandLine.arguments.dropFirst())
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
