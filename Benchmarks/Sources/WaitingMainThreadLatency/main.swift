// Wake latency on the main thread, where XCTest's synchronous tests wait: from the last
// `finish()` on another thread to the moment the waiting main thread runs again. Benchmark
// bodies run off the main thread, so this is a plain program:
//
//   cd Benchmarks && swift run -c release WaitingMainThreadLatency [samples]
//
// Each sample finishes the work 2 ms after the wait starts (polling: at a random moment of its
// 0.1 s quantum) and records the latency in microseconds; it prints p50, p90, p99 and max.

import Dispatch
import Foundation
import TinyWaiting
import WaitingLatencySupport
import XCTest

precondition(Thread.isMainThread)
let samples = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 300

func report(_ name: String, _ latencies: [Int]) {
  let sorted = latencies.sorted()
  func percentile(_ p: Double) -> Int { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
  print(
    "| \(name) | \(sorted.count) | \(percentile(0.5)) μs | \(percentile(0.9)) μs | "
      + "\(percentile(0.99)) μs | \(sorted.last!) μs |")
}

print("| main thread, wake latency | samples | p50 | p90 | p99 | max |")
print("|---|---:|---:|---:|---:|---:|")

report("TinyWaiting `wait(timeout:)`", (0..<samples).map { _ in
  let waiter = Waiter()
  let stamp = finishSoon { waiter.finish() }
  precondition(waiter.wait(timeout: .seconds(10)))
  return stamp.microsecondsSinceMark()
})

report("XCTestExpectation + XCTWaiter", (0..<samples).map { _ in
  let expectation = SendableExpectation(XCTestExpectation(description: "work"))
  let stamp = finishSoon { expectation.expectation.fulfill() }
  precondition(XCTWaiter().wait(for: [expectation.expectation], timeout: 10) == .completed)
  return stamp.microsecondsSinceMark()
})

// The classic waiter: check, then `RunLoop.run(until:)` for a 0.1 s quantum.
report("polling, `run(until:)` at a 0.1 s quantum", (0..<max(1, samples / 10)).map { _ in
  let flag = Flag()
  let stamp = finishSoon(after: .random(in: 0.001...0.1)) { flag.raise() }
  while !flag.isRaised { RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.1)) }
  return stamp.microsecondsSinceMark()
})
