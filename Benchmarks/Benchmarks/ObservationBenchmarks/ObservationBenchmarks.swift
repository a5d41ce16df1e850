// TinyObservation's hot paths, each paired with the hand-written equivalent: a read and an update
// with no watcher against a bare `Mutex`, updates from 2 threads at once against `Mutex.withLock`
// under the same contention, a set delivered to 1 or 10 handlers against a lock plus an array of
// closures, and a set through a derived atom against two such stages; OpenCombine's
// `CurrentValueSubject` alongside.

import Benchmark
import BenchmarkSupport
import Foundation
import Observation
import ObservationFloor
import OpenCombine
import Synchronization
import TinyObservation

/// Where every handler adds what it receives, so no delivery is optimized away. The benchmarks
/// run on one thread.
final class Sink: @unchecked Sendable {  // safe: only ever touched by the benchmark's one thread
  var total = 0
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 3, maxIterations: 2_000)
  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }

  let mutex = Mutex(0)
  let lock = NSLock()
  let lockedCount = Sink()
  let atom = Atom(0)
  let subject = CurrentValueSubject<Int, Never>(0)
  compare(
    "update, no watcher",
    calibrate: true,
    baseline: Variant("Mutex increment") { blackHole(mutex.withLock { $0 += 1; return $0 }) },
    Variant("TinyObservation Atom.update") { blackHole(atom.update { $0 += 1 }) },
    Variant("NSLock increment") {
      lock.lock()
      lockedCount.total += 1
      let value = lockedCount.total
      lock.unlock()
      blackHole(value)
    },
    Variant("OpenCombine CurrentValueSubject.value += 1") {
      subject.value += 1
      blackHole(subject.value)
    }
  )

  let readMutex = Mutex(41)
  let readAtom = Atom(41)
  let readSubject = CurrentValueSubject<Int, Never>(41)
  compare(
    "value read, no tracking",
    calibrate: true,
    baseline: Variant("Mutex read") { blackHole(readMutex.withLock { $0 }) },
    Variant("TinyObservation Atom.value") { blackHole(readAtom.value) },
    Variant("OpenCombine CurrentValueSubject.value") { blackHole(readSubject.value) }
  )

  // Reads inside one `withObservationTracking` per sample, as a SwiftUI `body` makes them: each
  // read tells the registrar, which records the key path in the tracking's access list.
  let trackedAtom = Atom(41)
  let trackedModel = TrackedModel()
  compare(
    "value read inside withObservationTracking",
    calibrate: true,
    around: { sample in withObservationTracking { sample() } onChange: {} },
    baseline: Variant("@Observable class property") { blackHole(trackedModel.count) },
    Variant("TinyObservation Atom.value") { blackHole(trackedAtom.value) }
  )

  // What SwiftUI does for a view that shows the value: its `body` reads it inside
  // `withObservationTracking` (a registration is stored), then a set fires that registration.
  let registeredAtom = Atom(0)
  let registeredModel = TrackedModel()
  var nextRegistered = 0
  compare(
    "set while a registration is stored",
    calibrate: true,
    baseline: Variant("@Observable class property") {
      nextRegistered &+= 1
      _ = withObservationTracking { registeredModel.count } onChange: {}
      registeredModel.count = nextRegistered
    },
    Variant("TinyObservation Atom.set") {
      nextRegistered &+= 1
      _ = withObservationTracking { registeredAtom.value } onChange: {}
      registeredAtom.set(nextRegistered)
    }
  )

  // One operation: 2 threads make 1,000 increments each at the same time.
  let contendedMutex = Mutex(0)
  let contendedAtom = Atom(0)
  let perThread = 1_000
  compare(
    "update, 2 threads contending (2,000 updates)",
    baseline: Variant("Mutex.withLock increment") {
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<perThread { contendedMutex.withLock { $0 += 1 } }
      }
      blackHole(contendedMutex.withLock { $0 })
    },
    Variant("TinyObservation Atom.update") {
      DispatchQueue.concurrentPerform(iterations: 2) { _ in
        for _ in 0..<perThread { contendedAtom.update { $0 += 1 } }
      }
      blackHole(contendedAtom.value)
    }
  )

  for handlers in [1, 10] {
    let sink = Sink()
    let floor = LockAndClosures()
    let watched = Atom(0)
    let combined = CurrentValueSubject<Int, Never>(0)
    var tokens: [WatchToken] = []
    var cancellables: [AnyCancellable] = []
    for _ in 0..<handlers {
      floor.add { old, new in sink.total &+= new &- old }
      tokens.append(watched.watch { change in sink.total &+= change.new &- change.old })
      var last = 0
      cancellables.append(
        combined.sink { new in
          sink.total &+= new &- last
          last = new
        })
    }
    // Every handler runs: one set of each reaches all of its handlers, each adding 1.
    floor.set(1)
    watched.set(1)
    combined.send(1)
    precondition(sink.total == 3 * handlers, "ObservationBenchmarks: a handler did not run")
    var next = 1
    compare(
      "set + fan-out to \(handlers) handler\(handlers == 1 ? "" : "s")",
      baseline: Variant("lock + closure array") {
        next &+= 1
        floor.set(next)
      },
      Variant("TinyObservation Atom.set + watch") {
        next &+= 1
        watched.set(next)
      },
      Variant("OpenCombine CurrentValueSubject.send + sink") {
        next &+= 1
        combined.send(next)
      }
    )
    // The registrations live as long as the benchmarks, which run after this closure returns.
    Keep.forever(tokens, cancellables, sink)
  }

  // A derived value (the source doubled) delivered to 1 handler. The floor: the source's lock
  // and closure array, whose one closure computes and sets a second stage.
  let derivedSink = Sink()
  let stage = LockAndClosures()
  stage.add { old, new in derivedSink.total &+= new &- old }
  let floorSource = LockAndClosures()
  floorSource.add { _, new in stage.set(new &* 2) }
  let source = Atom(0)
  let doubled = DerivedAtom(source) { $0 &* 2 }
  let derivedToken = doubled.watch { change in derivedSink.total &+= change.new &- change.old }
  floorSource.set(1)
  source.set(1)
  precondition(derivedSink.total == 4, "ObservationBenchmarks: a derived handler did not run")
  var nextSource = 1
  let derivedSubject = CurrentValueSubject<Int, Never>(0)
  var derivedLast = 0
  let derivedCancellable = derivedSubject.map { $0 &* 2 }.sink { new in
    derivedSink.total &+= new &- derivedLast
    derivedLast = new
  }
  derivedSubject.send(1)
  precondition(derivedSink.total == 6, "ObservationBenchmarks: a mapped sink did not run")
  compare(
    "set through a derived atom to 1 handler",
    baseline: Variant("two lock + closure array stages") {
      nextSource &+= 1
      floorSource.set(nextSource)
    },
    Variant("TinyObservation Atom.set + DerivedAtom + watch") {
      nextSource &+= 1
      source.set(nextSource)
    },
    Variant("OpenCombine CurrentValueSubject.map + sink") {
      nextSource &+= 1
      derivedSubject.send(nextSource)
    }
  )
  Keep.forever(derivedCancellable)
  Keep.forever(derivedToken, derivedSink, doubled)
}

/// A hand-written `@Observable` model: the peer of an atom read and set under Observation.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable final class TrackedModel: @unchecked Sendable {  // safe: one benchmark thread
  var count = 41
}

/// Holds objects for the life of the process.
enum Keep {
  nonisolated(unsafe) static var objects: [Any] = []

  static func forever(_ objects: Any...) {
    Self.objects.append(contentsOf: objects)
  }
}
