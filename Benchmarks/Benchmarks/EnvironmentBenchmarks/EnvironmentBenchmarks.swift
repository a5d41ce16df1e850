// TinyEnvironment: reading `Current` and entering a scope, each paired with the common ways to
// hold a world: a `Mutex`-guarded global, a `@TaskLocal`, and swift-dependencies. Every read
// takes the `locale` field (a struct holding one reference), the same field in every variant;
// reading a closure field such as `date` into `blackHole` would add a reabstraction allocation.

import Benchmark
import BenchmarkSupport
import Dependencies
import Foundation
import Synchronization
import TinyEnvironment

/// A world as a plain struct of the same nine fields, for the baselines that store one.
struct PlainWorld: Sendable {
  var date: @Sendable () -> Date = { Date(timeIntervalSinceReferenceDate: 0) }
  var calendar = Calendar(identifier: .gregorian)
  var locale = Locale(identifier: "en_US")
  var timeZone = TimeZone(identifier: "UTC")!
  var preferredLanguages = ["en"]
  var uuid: @Sendable () -> UUID = { UUID() }
  var storage = KeyValueStore.inMemory()
  var keyed: [ObjectIdentifier: any Sendable] = [:]
  var isMock = true
}

/// The `Mutex` baselines (Synchronization: macOS 15 and later on Apple platforms).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class MutexWorld: Sendable {
  let mutex = Mutex(PlainWorld())
}

enum PlainWorldLocal {
  @TaskLocal static var world = PlainWorld()
}

/// A model reading its locale through swift-dependencies' property wrapper.
struct DependencyReader: Sendable {
  @Dependency(\.locale) var locale
}

/// The fixed `date` closure every `date()` floor and variant calls.
let fixedDate: @Sendable () -> Date = { Date(timeIntervalSinceReferenceDate: 0) }

/// A world whose `date` is `fixedDate`; the global world during the benchmarks.
let fixedWorld: World = {
  var world = World.mock
  world.date = fixedDate
  return world
}()

/// A struct holding one closure, as the floors store it: a closure handed through a generic
/// (`withLock`'s result, a task local's value) on its own would be reabstracted, which
/// allocates.
struct DateSource: Sendable {
  var now: @Sendable () -> Date
}

/// The `Mutex` floor of `Current.date()`: a global holding the closure, read under the lock.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class MutexDate: Sendable {
  let mutex = Mutex(DateSource(now: fixedDate))
}

enum DateLocal {
  @TaskLocal static var source = DateSource(now: fixedDate)
}

let fixedSource = DateSource(now: fixedDate)

let dependencyReader = DependencyReader()
let mockWorld = World.mock
let plainWorld = PlainWorld()
let replacementDate: @Sendable () -> Date = { .distantPast }
let replacementLocale = Locale(identifier: "es_ES")

/// Keeps a `withWorld` scope open on another thread while `body` runs, so that reads pay for
/// the task-local lookup although the reading code itself is in no scope.
func withScopeOpenElsewhere(_ body: () -> Void) {
  let entered = DispatchSemaphore(value: 0)
  let release = DispatchSemaphore(value: 0)
  Thread {
    withWorld(.mock) {
      entered.signal()
      release.wait()
    }
  }.start()
  entered.wait()
  body()
  release.signal()
}

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .perOperation(warmupIterations: 3, maxIterations: 2_000)
  clockBenchmarks()

  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
  let mutexWorld = MutexWorld()
  let mutexDate = MutexDate()
  // The global world of every benchmark below: a mock world whose `date` is `fixedDate`.
  Current = fixedWorld  // allow-current-assignment

  compare(
    "Current.date(), no scope anywhere",
    baseline: Variant("Mutex-guarded closure, read and called") {
      blackHole(mutexDate.mutex.withLock { $0 }.now())
    },
    Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) }
  )

  // Reading inside scopes held open for the whole sample: the world's scope outside, the
  // floor's task local inside it, so that a read of `Current` walks past the floor's binding
  // to find its own (the bias, one step of the task-local lookup, is against TinyEnvironment).
  compare(
    "Current.date(), inside a scope",
    around: { sample in
      withWorld(fixedWorld) { DateLocal.$source.withValue(fixedSource, operation: sample) }
    },
    baseline: Variant("bound @TaskLocal closure, read and called") {
      blackHole(DateLocal.source.now())
    },
    Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) }
  )

  // The same after an assignment inside the scope: the world is then read from the
  // replacement, behind the scope's lock.
  compare(
    "Current.date(), inside a scope, after an assignment in it",
    around: { sample in
      withWorld(fixedWorld) {
        Current.date = fixedDate  // allow-current-assignment
        DateLocal.$source.withValue(fixedSource, operation: sample)
      }
    },
    baseline: Variant("bound @TaskLocal closure, read and called") {
      blackHole(DateLocal.source.now())
    },
    Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) }
  )

  // The floor binds a world, as a hand-written environment does: a `@TaskLocal` struct of the
  // world's fields. Binding the one closure that is read is shown beside it: no scope of a whole
  // world can bind less.
  compare(
    "enter a scope, Current.date(), leave",
    baseline: Variant("@TaskLocal withValue, read and call") {
      PlainWorldLocal.$world.withValue(plainWorld) { blackHole(PlainWorldLocal.world.date()) }
    },
    Variant("TinyEnvironment withWorld(world)") {
      withWorld(fixedWorld) { blackHole(Current.date()) }
    },
    Variant("TinyEnvironment withWorld { $0.date = ... }") {
      withWorld({ $0.date = fixedDate }) { blackHole(Current.date()) }
    },
    Variant("@TaskLocal withValue of the one closure, read and call") {
      DateLocal.$source.withValue(fixedSource) { blackHole(DateLocal.source.now()) }
    }
  )

  compare(
    "read a field, no scope anywhere",
    calibrate: true,
    baseline: Variant("Mutex global, one field") {
      blackHole(mutexWorld.mutex.withLock { $0.locale })
    },
    Variant("TinyEnvironment Current.locale") { blackHole(Current.locale) },
    Variant("Mutex global, whole struct copied") {
      blackHole(mutexWorld.mutex.withLock { $0 }.locale)
    },
    Variant("@TaskLocal struct, one field") { blackHole(PlainWorldLocal.world.locale) },
    Variant("swift-dependencies @Dependency") { blackHole(dependencyReader.locale) }
  )

  // Reading inside a scope that stays open for the whole sample: the scope wraps the loop, so
  // these are plain benchmarks, and their ratio is the ratio of separately measured medians.
  let insideScope = "read a field, inside a scope"
  Benchmark("\(insideScope) · @TaskLocal struct, one field") { benchmark in
    PlainWorldLocal.$world.withValue(plainWorld) {
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { blackHole(PlainWorldLocal.world.locale) }
      benchmark.stopMeasurement()
    }
  }
  Benchmark("\(insideScope) · TinyEnvironment Current.locale") { benchmark in
    withWorld(mockWorld) {
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { blackHole(Current.locale) }
      benchmark.stopMeasurement()
    }
  }
  Benchmark("\(insideScope) · swift-dependencies @Dependency") { benchmark in
    withDependencies {
      $0.locale = replacementLocale
    } operation: {
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { blackHole(dependencyReader.locale) }
      benchmark.stopMeasurement()
    }
  }

  // Reading outside any scope while another thread holds one open: the slow path.
  let elsewhere = "read a field, a scope open on another thread"
  Benchmark("\(elsewhere) · @TaskLocal struct, one field") { benchmark in
    withScopeOpenElsewhere {
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { blackHole(PlainWorldLocal.world.locale) }
      benchmark.stopMeasurement()
    }
  }
  Benchmark("\(elsewhere) · TinyEnvironment Current.locale") { benchmark in
    withScopeOpenElsewhere {
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations { blackHole(Current.locale) }
      benchmark.stopMeasurement()
    }
  }

  compare(
    "enter a scope, read, leave",
    baseline: Variant("@TaskLocal withValue, read") {
      PlainWorldLocal.$world.withValue(plainWorld) { blackHole(PlainWorldLocal.world.locale) }
    },
    Variant("TinyEnvironment withWorld(world)") {
      withWorld(mockWorld) { blackHole(Current.locale) }
    },
    Variant("TinyEnvironment withWorld { $0.date = ... }") {
      withWorld({ $0.date = replacementDate }) { blackHole(Current.locale) }
    },
    Variant("swift-dependencies withDependencies") {
      withDependencies {
        $0.locale = replacementLocale
      } operation: {
        blackHole(dependencyReader.locale)
      }
    }
  )

  // The same in a task, where the runtime binds task locals with the task's own allocator
  // (outside a task, every binding is one malloc). Plain benchmarks: `compare` is synchronous.
  let inTask = "enter a scope, read, leave, in a task"
  Benchmark("\(inTask) · @TaskLocal withValue, read") { benchmark async in
    for _ in benchmark.scaledIterations {
      await PlainWorldLocal.$world.withValue(plainWorld) { () async in
        blackHole(PlainWorldLocal.world.locale)
      }
    }
  }
  Benchmark("\(inTask) · TinyEnvironment withWorld(world)") { benchmark async in
    for _ in benchmark.scaledIterations {
      await withWorld(mockWorld) { () async in blackHole(Current.locale) }
    }
  }
  Benchmark("\(inTask) · TinyEnvironment withWorld(world), synchronous form") {
    benchmark async in
    for _ in benchmark.scaledIterations {
      withWorld(mockWorld) { blackHole(Current.locale) }
    }
  }
  Benchmark("\(inTask) · swift-dependencies withDependencies") { benchmark async in
    for _ in benchmark.scaledIterations {
      await withDependencies {
        $0.locale = replacementLocale
      } operation: { () async in
        blackHole(dependencyReader.locale)
      }
    }
  }

  compare(
    "assign a field outside any scope",
    baseline: Variant("Mutex global, one field") {
      mutexWorld.mutex.withLock { $0.date = replacementDate }
    },
    Variant("TinyEnvironment Current.date = ...") {
      Current.date = replacementDate  // allow-current-assignment
    }
  )
}
