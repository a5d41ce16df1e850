// TinyWaiting: a resolved Promise's map×3 and then×3 chains, each ending in `whenResolved`,
// beside the same chain of a hand-written `Mutex` promise (`MutexPromise`, in WaitingFloor) and
// OpenCombine's Future; `await promise.value` beside a checked-continuation round trip, on a
// resolved promise and on one fulfilled later from `DispatchQueue.global()`; and a Waiter's wake
// latency beside XCTestExpectation + XCTWaiter and a 0.1 s polling loop.

import Benchmark
import BenchmarkSupport
import Dispatch
import Foundation
import OpenCombine
import TinyWaiting
import WaitingFloor
import WaitingLatencySupport
import XCTest

// MARK: - Wake latency

/// The custom metric for wake latency: from the last `finish()` (or `fulfill()`) to the moment
/// the waiting code runs again.
let wakeLatency = BenchmarkMetric.custom(
  "wake latency (μs)", polarity: .prefersSmaller, useScalingFactor: false)

// MARK: - The chains and round trips, checked before anything is timed

/// 1 → 2 → 4 → 1 with `map`, on the hand-written `Mutex` promise.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
func floorMapChain() -> MutexPromise<Int> {
  MutexPromise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }
}

/// 1 → 2 → 4 → 1 with `map`, on `Promise`.
func promiseMapChain() -> Promise<Int> {
  Promise(value: 1).map { $0 + 1 }.map { $0 * 2 }.map { $0 - 3 }
}

/// 1 → 2 → 4 → 1 with `then`, one hand-written `Mutex` promise per step.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
func floorThenChain() -> MutexPromise<Int> {
  MutexPromise(value: 1).then { MutexPromise(value: $0 + 1) }
    .then { MutexPromise(value: $0 * 2) }.then { MutexPromise(value: $0 - 3) }
}

/// 1 → 2 → 4 → 1 with `then`, one `Promise` per step.
func promiseThenChain() -> Promise<Int> {
  Promise(value: 1).then { Promise(value: $0 + 1) }.then { Promise(value: $0 * 2) }
    .then { Promise(value: $0 - 3) }
}

/// The value a chain's `whenResolved` callback receives (each chain above calls it at once).
final class Received: @unchecked Sendable {  // safe: written and read on one thread
  var value: Int?
}

/// What `whenResolved` gives at once on a resolved `Promise`.
func valueWhenResolved(_ promise: Promise<Int>) -> Int? {
  let received = Received()
  promise.whenResolved { received.value = try? $0.get() }
  return received.value
}

/// What `whenResolved` gives at once on a resolved `MutexPromise`.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
func valueWhenResolved(_ promise: MutexPromise<Int>) -> Int? {
  let received = Received()
  promise.whenResolved { received.value = try? $0.get() }
  return received.value
}

/// 1 → 2 → 4 → 1, one OpenCombine `Future` per step.
func futureFlatMapChain() -> some Publisher<Int, Never> {
  Future<Int, Never> { $0(.success(1)) }
    .flatMap { value in Future<Int, Never> { $0(.success(value + 1)) } }
    .flatMap { value in Future<Int, Never> { $0(.success(value * 2)) } }
    .flatMap { value in Future<Int, Never> { $0(.success(value - 3)) } }
}

/// 42, from a checked continuation resumed on a global-queue thread.
func continuationRoundTrip() async -> Int {
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async { continuation.resume(returning: 42) }
  }
}

/// 42, from a pending promise fulfilled on a global-queue thread.
func pendingPromiseRoundTrip() async -> Int {
  let promise = Promise<Int>()
  DispatchQueue.global().async { promise.fulfill(42) }
  do {
    return try await promise.value
  } catch {
    fatalError("WaitingBenchmarks: the promise was rejected with \(error)")
  }
}

/// Stops the suite when a variant computes the wrong result: a wrong variant is not timed.
func verifyVariants() async {
  var published: [Int] = []
  let subscription = futureFlatMapChain().sink { published.append($0) }
  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
  let results = [
    valueWhenResolved(floorMapChain()), valueWhenResolved(promiseMapChain()),
    valueWhenResolved(floorThenChain()), valueWhenResolved(promiseThenChain()), published.first,
    await continuationRoundTrip(), await pendingPromiseRoundTrip(),
  ]
  guard results == [1, 1, 1, 1, 1, 42, 42] else {
    fatalError("WaitingBenchmarks: a variant computed the wrong result: \(results)")
  }
  blackHole(subscription)
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 10, maxIterations: 1_000)
  Benchmark.setup = { await verifyVariants() }

  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }

  // The goal rows: each chain starts from a resolved promise and ends in `whenResolved`, beside
  // the same chain of the hand-written `Mutex` promise.
  compare(
    "Promise map×3 + whenResolved (resolved)",
    calibrate: true,
    baseline: Variant("hand-written Mutex promise") {
      floorMapChain().whenResolved { blackHole($0) }
    },
    Variant("TinyWaiting") { promiseMapChain().whenResolved { blackHole($0) } },
    Variant("OpenCombine Future + map×3") {
      let chain = Future<Int, Never> { $0(.success(1)) }.map { $0 + 1 }.map { $0 * 2 }.map {
        $0 - 3
      }
      let subscription = chain.sink { blackHole($0) }
      blackHole(subscription)
    }
  )

  compare(
    "Promise then×3 + whenResolved (resolved)",
    calibrate: true,
    baseline: Variant("hand-written Mutex promise") {
      floorThenChain().whenResolved { blackHole($0) }
    },
    Variant("TinyWaiting") { promiseThenChain().whenResolved { blackHole($0) } },
    Variant("OpenCombine Future + flatMap×3") {
      let subscription = futureFlatMapChain().sink { blackHole($0) }
      blackHole(subscription)
    }
  )

  // A pending promise, fulfilled from a global-queue thread while the task awaits it, beside
  // the floor: a checked continuation resumed from the same queue.
  compare(
    "await value (pending, fulfilled from DispatchQueue.global())",
    configuration: .roundTrip,
    calibrate: true,
    baseline: AsyncVariant("checked continuation resumed from the queue") {
      blackHole(await continuationRoundTrip())
    },
    AsyncVariant("TinyWaiting") { blackHole(await pendingPromiseRoundTrip()) }
  )

  // Async bodies of the resolved case stay unpaired: the report divides medians instead.
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
