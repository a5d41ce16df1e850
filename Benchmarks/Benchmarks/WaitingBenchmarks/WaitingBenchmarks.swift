// TinyWaiting: a resolved Promise's map×3 chain beside a hand-written lock-based promise and
// OpenCombine's Future; `await promise.value` beside a checked-continuation round trip; and a
// Waiter's wake latency beside XCTestExpectation + XCTWaiter and a 0.1 s polling loop.

import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import OpenCombine
import TinyWaiting
import WaitingLatencySupport
import XCTest

// MARK: - A hand-written lock-based promise, the baseline

/// The promise one writes by hand: an `NSLock`, a result, a callback list, and a `map` that
/// registers a callback (which runs at once when the promise is already resolved).
final class HandPromise<Value: Sendable>: @unchecked Sendable {  // safe: state only under `lock`
  private let lock = NSLock()
  private var result: Result<Value, any Error>?
  private var callbacks: [@Sendable (Result<Value, any Error>) -> Void] = []

  init() {}

  init(value: Value) {
    result = .success(value)
  }

  func resolve(_ result: Result<Value, any Error>) {
    lock.lock()
    guard self.result == nil else { return lock.unlock() }
    self.result = result
    let waiting = callbacks
    callbacks = []
    lock.unlock()
    for callback in waiting { callback(result) }
  }

  func whenResolved(_ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {
    lock.lock()
    if let result {
      lock.unlock()
      callback(result)
    } else {
      callbacks.append(callback)
      lock.unlock()
    }
  }

  func map<New: Sendable>(_ transform: @escaping @Sendable (Value) throws -> New) -> HandPromise<New>
  {
    let mapped = HandPromise<New>()
    whenResolved { result in mapped.resolve(result.flatMap { value in Result { try transform(value) } }) }
    return mapped
  }

  var value: Value? {
    lock.lock()
    defer { lock.unlock() }
    return try? result?.get()
  }
}

// MARK: - Wake latency

/// The custom metric for wake latency: from the last `finish()` (or `fulfill()`) to the moment
/// the waiting code runs again.
let wakeLatency = BenchmarkMetric.custom(
  "wake latency (μs)", polarity: .prefersSmaller, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 10, maxIterations: 1_000)

  compare(
    "Promise map×3 (resolved)",
    calibrate: true,
    baseline: Variant("hand-written lock-based promise") {
      let chain = HandPromise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }
      blackHole(chain.value)
    },
    Variant("TinyWaiting") {
      let chain = Promise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }
      blackHole(chain.result)
    },
    Variant("OpenCombine Future + map×3") {
      let chain = Future<Int, Never> { $0(.success(1)) }.map { $0 + 1 }.map { $0 * 2 }.map {
        $0 - 3
      }
      let subscription = chain.sink { blackHole($0) }
      blackHole(subscription)
    }
  )

  // Async bodies cannot be paired by `compare`; the report divides medians instead.
  let resolved = Promise(value: 42)
  Benchmark("await value (resolved) · Checked continuation round trip") { benchmark async in
    for _ in benchmark.scaledIterations {
      blackHole(await withCheckedContinuation { $0.resume(returning: 42) })
    }
  }
  Benchmark("await value (resolved) · TinyWaiting") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      blackHole(try await resolved.value)
    }
  }

  var latency = Benchmark.Configuration(
    metrics: [wakeLatency], timeUnits: .microseconds, warmupIterations: 5, scalingFactor: .one,
    maxDuration: .seconds(3), maxIterations: 300)

  Benchmark("wake latency · TinyWaiting sync wait, another thread", configuration: latency) {
    benchmark in
    for _ in benchmark.scaledIterations {
      let waiter = Waiter()
      let stamp = finishSoon { waiter.finish() }
      precondition(waiter.wait(timeout: .seconds(10)))
      benchmark.measurement(wakeLatency, stamp.microsecondsSinceMark())
    }
  }

  Benchmark("wake latency · TinyWaiting async wait", configuration: latency) { benchmark async in
    for _ in benchmark.scaledIterations {
      let waiter = Waiter()
      let stamp = finishSoon { waiter.finish() }
      let finished = await waiter.wait(timeout: .seconds(10))
      precondition(finished)
      benchmark.measurement(wakeLatency, stamp.microsecondsSinceMark())
    }
  }

  Benchmark("wake latency · XCTestExpectation + XCTWaiter, another thread", configuration: latency)
  {
    benchmark in
    for _ in benchmark.scaledIterations {
      let expectation = SendableExpectation(XCTestExpectation(description: "work"))
      let stamp = finishSoon { expectation.expectation.fulfill() }
      precondition(XCTWaiter().wait(for: [expectation.expectation], timeout: 10) == .completed)
      benchmark.measurement(wakeLatency, stamp.microsecondsSinceMark())
    }
  }

  // The classic design: check, then sleep a whole quantum. Off the main thread a run loop
  // without sources returns at once, so the quantum is a plain sleep here; the finish comes at
  // a random moment of the quantum, as real work would.
  latency.maxIterations = 40
  latency.maxDuration = .seconds(5)
  Benchmark("wake latency · polling at a 0.1 s quantum, another thread", configuration: latency) {
    benchmark in
    for _ in benchmark.scaledIterations {
      let flag = Flag()
      let stamp = finishSoon(after: .random(in: 0.001...0.1)) { flag.raise() }
      while !flag.isRaised { Thread.sleep(forTimeInterval: 0.1) }
      benchmark.measurement(wakeLatency, stamp.microsecondsSinceMark())
    }
  }
}
