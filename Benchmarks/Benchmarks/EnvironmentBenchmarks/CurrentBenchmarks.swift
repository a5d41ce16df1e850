// Reading `Current` and entering a scope, each row paired with its floor (the hand-written way
// to hold the same value: a `Mutex`-guarded global, a `@TaskLocal`) and, in a group of its own,
// with swift-dependencies doing the same (TinyEnvironment is that group's baseline, so its
// ratio is how many times longer swift-dependencies takes). Every row reads and calls the
// world's `date`, which is a fixed closure, as the floors' and swift-dependencies' is.

import Benchmark
import BenchmarkSupport
import Dependencies
import Foundation
import Synchronization
import TinyEnvironment

/// The fixed `date` closure every floor and variant calls.
let fixedDate: @Sendable () -> Date = { Date(timeIntervalSinceReferenceDate: 0) }

/// A world whose `date` is `fixedDate`: the global world during the benchmarks, and the world
/// every scope enters.
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

/// The floor of a read with no scope anywhere: a global holding the closure, read under a
/// `Mutex` (Synchronization: macOS 15 and later on Apple platforms).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class MutexDate: Sendable {
  let mutex = Mutex(DateSource(now: fixedDate))
}

/// The floors that bind a task local: the closure alone, for a read inside a scope, and a
/// whole world, for entering a scope.
enum Locals {
  @TaskLocal static var source = DateSource(now: fixedDate)
  @TaskLocal static var world = World.mock
}

let fixedSource = DateSource(now: fixedDate)

/// A model reading the date through swift-dependencies' property wrapper.
struct DependencyReader: Sendable {
  @Dependency(\.date.now) var now
}

let dependencyReader = DependencyReader()

func currentBenchmarks() {
  guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
  let mutexDate = MutexDate()
  Current = fixedWorld  // allow-current-assignment

  let noScope = "Current.date(), no scope anywhere"
  compare(
    noScope,
    calibrate: true,
    baseline: Variant("Mutex-guarded closure, read and called") {
      blackHole(mutexDate.mutex.withLock { $0 }.now())
    },
    Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) }
  )
  compare(
    "\(noScope), against swift-dependencies",
    baseline: Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) },
    Variant("swift-dependencies @Dependency(\\.date.now), live") {
      blackHole(dependencyReader.now)
    }
  )

  // Scopes held open around every sample, both halves of it: the world's scope outside, the
  // floor's task local (or swift-dependencies' scope) inside it, so a read of `Current` walks
  // past the inner binding to find its own (a bias against TinyEnvironment).
  let inScope = "Current.date(), inside a scope"
  compare(
    inScope,
    around: { sample in
      withWorld(fixedWorld) { Locals.$source.withValue(fixedSource, operation: sample) }
    },
    baseline: Variant("bound @TaskLocal closure, read and called") {
      blackHole(Locals.source.now())
    },
    Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) }
  )
  compare(
    "\(inScope), against swift-dependencies",
    around: { sample in
      withWorld(fixedWorld) {
        withDependencies {
          $0.date.now = fixedDate()
        } operation: {
          sample()
        }
      }
    },
    baseline: Variant("TinyEnvironment Current.date()") { blackHole(Current.date()) },
    Variant("swift-dependencies @Dependency(\\.date.now), overridden") {
      blackHole(dependencyReader.now)
    }
  )

  let enter = "withWorld(world) + one read"
  compare(
    enter,
    baseline: Variant("@TaskLocal of a World, withValue + one read") {
      Locals.$world.withValue(fixedWorld) { blackHole(Locals.world.date()) }
    },
    Variant("TinyEnvironment withWorld(world)") {
      withWorld(fixedWorld) { blackHole(Current.date()) }
    }
  )
  compare(
    "\(enter), against swift-dependencies",
    baseline: Variant("TinyEnvironment withWorld(world)") {
      withWorld(fixedWorld) { blackHole(Current.date()) }
    },
    Variant("swift-dependencies withDependencies") {
      withDependencies {
        $0.date.now = fixedDate()
      } operation: {
        blackHole(dependencyReader.now)
      }
    }
  )

  compare(
    "withWorld { $0.date = ... } + one read, against swift-dependencies",
    baseline: Variant("TinyEnvironment withWorld { $0.date = ... }") {
      withWorld({ $0.date = fixedDate }) { blackHole(Current.date()) }
    },
    Variant("swift-dependencies withDependencies") {
      withDependencies {
        $0.date.now = fixedDate()
      } operation: {
        blackHole(dependencyReader.now)
      }
    }
  )

  // The asynchronous form in a task, where the runtime binds task locals with the task's own
  // allocator (outside a task, each binding is one malloc). Plain benchmarks, since `compare`
  // is synchronous: the ratio divides the medians.
  let inTask = "withWorld(world) + one read, async form, in a task"
  Benchmark("\(inTask) · @TaskLocal of a World, withValue + one read") { benchmark async in
    for _ in benchmark.scaledIterations {
      await Locals.$world.withValue(fixedWorld) { () async in blackHole(Locals.world.date()) }
    }
  }
  Benchmark("\(inTask) · TinyEnvironment withWorld(world)") { benchmark async in
    for _ in benchmark.scaledIterations {
      await withWorld(fixedWorld) { () async in blackHole(Current.date()) }
    }
  }
}
