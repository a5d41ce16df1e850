// Instruction counts and times of TinyContext's read goals beside their floor, for
// Docs/Performance.md: `owner.contextInfo[key]` on owners that hold their context,
// `ContextTable.shared.contextInfo(for: owner)[key]`, and the default `owner.contextInfo[key]`
// of a `ContextCarrying` class, each over owners in a fixed shuffled order, beside a
// `Mutex<[ObjectIdentifier: Int]>` read of the same owners in the same order. Each read is a
// call into a function that is not inlined, as a benchmark body calls it.
//
//   swift build -c release --product ContextInstructions
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     .build/release/ContextInstructions <mode> 1000 100000
//     (instructions per read: the total less that of mode `none` with the same owners, divided
//     by 100,000; add --cache-sim=yes for the cache misses, which decide at 100,000 owners)
//   .build/release/ContextInstructions <mode,mode,...> 1000 1000000 time
//     (the best of five runs, per read)
//
// Modes: none, floor (the `Mutex` dictionary of the owners that hold their context), held,
// sharedfloor (the same of the owners that carry the default context), shared, default, and
// the stand-ins of `shared` (StandInTable, in ContextFloor): complete, copied, withoutSweep,
// inEntry.

import ContextFloor
import TinyContext

final class Held: ContextCarrying {
  let contextInfo = ContextInfo()
}

final class Carried: ContextCarrying {}

let key = ContextKey<Int>("value")

/// Keeps a result alive without printing it.
@inline(never) func use(_ value: Int?) {
  if value == -42 { print("never") }
}

@inline(never) func read(_ floor: MutexDictionary, _ owner: AnyObject) -> Int? {
  floor.value(for: owner)
}
@inline(never) func readHeld(_ owner: Held) -> Int? { owner.contextInfo[key] }
@inline(never) func readShared(_ owner: Carried) -> Int? {
  ContextTable.shared.contextInfo(for: owner)[key]
}
@inline(never) func readDefault(_ owner: Carried) -> Int? { owner.contextInfo[key] }
@inline(never) func readStandIn(_ table: StandInTable, _ owner: Carried) -> Int? {
  table.value(for: owner)
}

/// The stand-in table of each stand-in mode.
let standIns: [String: StandInTable] = [
  "complete": .complete, "copied": .copied, "withoutSweep": .withoutSweep, "inEntry": .inEntry,
]

/// Makes `owners` owners of each kind, each given its index, and reads `count` of them in the
/// fixed shuffled order with `mode`.
func run(_ mode: String, owners: Int, count: Int) {
  let held = shuffled((0..<owners).map { _ in Held() })
  let carried = shuffled((0..<owners).map { _ in Carried() })
  for (index, owner) in held.enumerated() { owner.contextInfo[key] = index }
  for (index, owner) in carried.enumerated() { owner.contextInfo[key] = index }
  if let table = standIns[mode] {
    for (index, owner) in carried.enumerated() { table.store(index, for: owner) }
  }
  let heldFloor = MutexDictionary(held)
  let carriedFloor = MutexDictionary(carried)
  let heldWalk = Walk(held)
  let carriedWalk = Walk(carried)
  func reads() {
    switch mode {
    case "none": break
    case "floor": for _ in 0..<count { use(heldWalk.next { read(heldFloor, $0) }) }
    case "held": for _ in 0..<count { use(heldWalk.next(readHeld)) }
    case "sharedfloor": for _ in 0..<count { use(carriedWalk.next { read(carriedFloor, $0) }) }
    case "shared": for _ in 0..<count { use(carriedWalk.next(readShared)) }
    case "default": for _ in 0..<count { use(carriedWalk.next(readDefault)) }
    case let mode where standIns[mode] != nil:
      let table = standIns[mode]!
      for _ in 0..<count { use(carriedWalk.next { readStandIn(table, $0) }) }
    default: fatalError("unknown mode \(mode)")
    }
  }
  guard timing else { return reads() }
  let clock = ContinuousClock()
  print(mode, (0..<5).map { _ in clock.measure(reads) }.min()! / count)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let modes = arguments.first else {
  fatalError("usage: ContextInstructions <mode[,mode...]> [owners] [count] [time]")
}
let owners = arguments.count > 1 ? Int(arguments[1]) ?? 1_000 : 1_000
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let timing = arguments.count > 3
for mode in modes.split(separator: ",").map(String.init) { run(mode, owners: owners, count: count) }
