// TinyObservation's hot paths, each paired with the hand-written equivalent: an update with no
// watcher against a bare `Mutex` increment, and a set delivered to 1 or 10 handlers against a
// lock plus an array of closures; OpenCombine's `CurrentValueSubject` alongside.

import Benchmark
import BenchmarkSupport
import Foundation
import OpenCombine
import Synchronization
import TinyObservation

/// Where every handler adds what it receives, so no delivery is optimized away. The benchmarks
/// run on one thread.
final class Sink: @unchecked Sendable {  // safe: only ever touched by the benchmark's one thread
  var total = 0
}

/// The hand-written floor: a value and an array of `(old, new)` closures behind one `Mutex`;
/// `set` swaps the value, copies the array under the lock and calls each closure outside it.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class LockAndClosures: Sendable {
  private struct State {
    var value = 0
    var handlers: [@Sendable (Int, Int) -> Void] = []
  }
  private let state = Mutex(State())

  func add(_ handler: @escaping @Sendable (Int, Int) -> Void) {
    state.withLock { $0.handlers.append(handler) }
  }

  func set(_ value: Int) {
    let (old, handlers) = state.withLock { state in
      defer { state.value = value }
      return (state.value, state.handlers)
    }
    for handler in handlers {
      handler(old, value)
    }
  }
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
}

/// Holds objects for the life of the process.
enum Keep {
  nonisolated(unsafe) static var objects: [Any] = []

  static func forever(_ objects: Any...) {
    Self.objects.append(contentsOf: objects)
  }
}
