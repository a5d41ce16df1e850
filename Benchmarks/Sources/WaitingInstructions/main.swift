// Instruction counts and times of TinyWaiting's goal rows beside their floors, for
// Docs/Performance.md: a resolved promise's map×3 and then×3 ending in whenResolved beside the
// hand-written `MutexPromise`, and an await of a pending promise fulfilled from
// `DispatchQueue.global()` beside a checked continuation resumed from there. Each operation is a
// call into a function that is not inlined, as a benchmark body calls it.
//
//   swift build -c release --product WaitingInstructions
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/WaitingInstructions <mode> 100000
//     (instructions per operation: the total less that of mode `none`, divided by 100,000;
//     for the awaits, every thread's instructions count)
//   .build/release/WaitingInstructions <mode,mode,...> 300000 time
//     (the best of five runs, per operation)
//
// Modes: none, floormap and map (map×3), floorthen and then (then×3), continuation and pending
// (one round trip through a global-queue thread).

import Dispatch
import InstructionsSupport
import Synchronization
import TinyWaiting
import WaitingFloor

/// Keeps a result alive without printing it.
@inline(never) func use<T>(_ value: T) {
  withExtendedLifetime(value) {}
}

@inline(never) func floorMap() {
  MutexPromise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.whenResolved { use($0) }
}

@inline(never) func promiseMap() {
  Promise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }.whenResolved { use($0) }
}

@inline(never) func floorThen() {
  MutexPromise(value: 1).then { MutexPromise(value: $0 + 1) }.then { MutexPromise(value: $0 * 2) }
    .then { MutexPromise(value: $0 - 3) }.whenResolved { use($0) }
}

@inline(never) func promiseThen() {
  Promise(value: 1).then { Promise(value: $0 + 1) }.then { Promise(value: $0 * 2) }
    .then { Promise(value: $0 - 3) }.whenResolved { use($0) }
}

@inline(never) func continuationRoundTrip() async -> Int {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: 42) }
  }
}

@inline(never) func pendingRoundTrip() async -> Int {
  let promise = Promise<Int>()
  DispatchQueue.global().async { promise.fulfill(42) }
  return try! await promise.value
}

/// Runs `count` operations of `mode`; the awaits in a task, while this thread blocks (a program
/// whose top-level code awaits stops valgrind).
func run(_ mode: String, _ count: Int) {
  switch mode {
  case "none": break
  case "floormap": for _ in 0..<count { floorMap() }
  case "map": for _ in 0..<count { promiseMap() }
  case "floorthen": for _ in 0..<count { floorThen() }
  case "then": for _ in 0..<count { promiseThen() }
  case "continuation", "pending":
    let done = DispatchSemaphore(value: 0)
    Task {
      for _ in 0..<count {
        use(mode == "pending" ? await pendingRoundTrip() : await continuationRoundTrip())
      }
      done.signal()
    }
    done.wait()
  default: fatalError("unknown mode \(mode)")
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
runModes(arguments, usage: "WaitingInstructions <mode[,mode...]> [count] [time]", run)
