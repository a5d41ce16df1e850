/// The command line the instruction-count tools share: `<mode[,mode...]> [count] [time]`.
///
/// Without `time`, runs the one mode named `count` times (100,000 by default), for
/// `valgrind --tool=callgrind`; with it, runs each named mode five times and prints its best
/// time per operation.
public func runModes(
  _ arguments: [String], usage: String, _ run: (_ mode: String, _ count: Int) -> Void
) {
  guard let modes = arguments.first else { fatalError("usage: \(usage)") }
  let count = arguments.count > 1 ? Int(arguments[1]) ?? 100_000 : 100_000
  guard arguments.count > 2 else { return run(modes, count) }
  for mode in modes.split(separator: ",").map(String.init) {
    let clock = ContinuousClock()
    let best = (0..<5).map { _ in clock.measure { run(mode, count) } }.min()!
    print(mode, best / count)
  }
}
