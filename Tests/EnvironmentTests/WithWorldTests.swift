import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct WithWorldTests {
  @Test func aScopeReplacesTheWorldAndRestoresItOnExit() {
    let (outer, outerMarker) = markedWorld()
    let (inner, innerMarker) = markedWorld()
    withWorld(outer) {
      #expect(currentMarker == outerMarker)
      let result = withWorld(inner) {
        #expect(currentMarker == innerMarker)
        return 42
      }
      #expect(result == 42)
      #expect(currentMarker == outerMarker)
    }
    #expect(currentMarker != outerMarker)
  }

  @Test func aScopeThatThrowsEndsFirstAndFreesItsWorld() {
    let (outer, outerMarker) = markedWorld()
    let freed = Recorder<String>()
    withWorld(outer) {
      do throws(APIError) {
        try withWorld(markedWorldHoldingAProbe(freed).world) { () throws(APIError) in
          #expect(currentMarker != outerMarker)
          #expect(freed.all == [])
          throw APIError(code: 1)
        }
      } catch {
        // The scope has ended, and only it held its world.
        #expect(currentMarker == outerMarker)
        #expect(freed.all == ["freed"])
      }
    }
  }

  @Test func anAsyncScopeThatThrowsEndsFirstAndFreesItsWorld() async {
    let (outer, outerMarker) = markedWorld()
    let freed = Recorder<String>()
    let suspended = Gate()
    await withWorld(outer) { () async in
      do throws(APIError) {
        try await withWorld(markedWorldHoldingAProbe(freed).world) { () async throws(APIError) in
          // Suspends until another thread opens the gate, so the scope ends wherever the task
          // resumes.
          startThread { suspended.open() }
          await suspended.opened()
          #expect(currentMarker != outerMarker)
          throw APIError(code: 2)
        }
      } catch {
        #expect(error == APIError(code: 2))
        #expect(currentMarker == outerMarker)
        #expect(freed.all == ["freed"])
      }
    }
  }

  @Test func errorsKeepTheirType() async {
    do throws(APIError) {
      try withWorld(.mock) { () throws(APIError) in throw APIError(code: 1) }
      Issue.record("expected a throw")
    } catch {
      #expect(error == APIError(code: 1))
    }
    do throws(APIError) {
      try await withWorld(.mock) { () async throws(APIError) in throw APIError(code: 2) }
      Issue.record("expected a throw")
    } catch {
      #expect(error == APIError(code: 2))
    }
  }

  @Test func assignmentsInsideAScopeStayInIt() {
    let (world, marker) = markedWorld()
    withWorld(world) {
      withWorld(Current) {
        Current.date = { .distantPast }
        Current.locale = Locale(identifier: "fr_FR")
        #expect(Current.date() == .distantPast)
        #expect(currentMarker == marker)
      }
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 0))
      #expect(Current.locale.identifier == "en_US")
      Current = .live
      #expect(currentMarker == nil)
    }
    #expect(Current.preferredLanguages != [marker])
  }

  @Test func aNestedModifyingScopeStartsFromTheWorldAssignedInTheEnclosingScope() async {
    let (world, marker) = markedWorld()
    let (assigned, assignedMarker) = markedWorld()
    withWorld(world) {
      Current.date = { .distantPast }
      withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
        #expect(Current.date() == .distantPast)
        #expect(currentMarker == marker)
      }
      Current = assigned
      withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
        #expect(currentMarker == assignedMarker)
        #expect(Current.locale.identifier == "es_ES")
      }
    }
    await withWorld(world) { () async in
      Current = assigned
      await withWorld({ $0.date = { .distantFuture } }) { () async in
        await Task.yield()
        #expect(currentMarker == assignedMarker)
        #expect(Current.date() == .distantFuture)
      }
    }
  }

  @Test func timeTravel() {
    withWorld(.live) {
      let before = Date()
      Current.date = { .distantPast }
      #expect(Current.date() == .distantPast)
      Current.date = Date.init
      let now = Current.date()
      let after = Date()
      #expect(now >= before)
      #expect(now <= after)
    }
  }

  @Test func theModifyingFormStartsFromTheCurrentWorld() throws {
    let (world, marker) = markedWorld()
    withWorld(world) {
      withWorld({ $0.date = { .distantFuture } }) {
        #expect(Current.date() == .distantFuture)
        #expect(currentMarker == marker)
      }
      #expect(Current.date() == Date(timeIntervalSinceReferenceDate: 0))
    }
    let ran = Counter()
    try withWorld(.mock) {
      #expect(throws: WorldError.unknownTimeZoneIdentifier("Mars/Olympus")) {
        try withWorld({ try $0.setTimeZone(identifier: "Mars/Olympus") }) { ran.increment() }
      }
      #expect(ran.value == 0)
      try withWorld({ try $0.setTimeZone(identifier: "Pacific/Honolulu") }) {
        #expect(Current.timeZone.identifier == "Pacific/Honolulu")
      }
    }
  }

  @Test func theChangingFormStartsFromAnExplicitLiveScope() {
    withWorld(.live) {
      withWorld({ $0.preferredLanguages = ["x-live-based"] }) {
        #expect(Current.preferredLanguages == ["x-live-based"])
        #expect(Current.storage.value(forKey: "x-never-written") == nil)
      }
    }
  }

  @Test func theAsyncFormsScopeAsyncWork() async throws {
    let (world, marker) = markedWorld()
    let seen = await withWorld(world) { () async -> String? in
      await Task.yield()
      return currentMarker
    }
    #expect(seen == marker)
    let changed = await withWorld(world) { () async -> Date in
      await withWorld({ $0.date = { .distantFuture } }) { () async -> Date in
        await Task.yield()
        return Current.date()
      }
    }
    #expect(changed == .distantFuture)
    await withWorld(world) { () async -> Void in
      _ = await #expect(throws: WorldError.unknownLocaleIdentifier("Klingon")) {
        try await withWorld({ try $0.setLocale(identifier: "Klingon") }) { () async in }
      }
    }
  }

  @MainActor @Test func theAsyncFormRunsOnTheCallersActor() async {
    await withWorld(.mock) {
      MainActor.assertIsolated()
      await Task.yield()
      MainActor.assertIsolated()
    }
  }

  @Test func childTasksInheritTheScopeAndShareIt() async {
    let (world, marker) = markedWorld()
    await withWorld(world) {
      async let child = currentMarker
      #expect(await child == marker)
      let fromGroup = await withTaskGroup(of: String?.self) { group in
        for _ in 0..<4 { group.addTask { currentMarker } }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(fromGroup == Array(repeating: marker, count: 4))
      #expect(await Task { currentMarker }.value == marker)
      // A child's assignment changes the shared scope.
      await withTaskGroup(of: Void.self) { group in
        group.addTask { Current.date = { .distantFuture } }
      }
      #expect(Current.date() == .distantFuture)
    }
  }

  @Test func childTasksAssigningTheSharedScopeAtOnceAreSafe() async {
    let (world, marker) = markedWorld()
    await withWorld(world) {
      await withTaskGroup(of: Void.self) { group in
        for child in 0..<8 {
          group.addTask {
            for round in 0..<200 {
              let stamp = Date(timeIntervalSince1970: Double(child * 1_000 + round))
              Current.date = { stamp }
              _ = Current.date()
            }
          }
        }
      }
      // Assignments race (the last write wins), but every one is a whole world.
      let final = Current.date().timeIntervalSince1970
      #expect(final.truncatingRemainder(dividingBy: 1_000) == 199)
      #expect(currentMarker == marker)
    }
  }

  @Test func anUnstructuredTaskKeepsItsScopeAfterTheScopeEnds() async {
    let (world, marker) = markedWorld()
    let gate = Gate()
    let task = withWorld(world) {
      Task { () async -> [String?] in
        await gate.opened()
        let first = currentMarker
        Current.date = { .distantFuture }  // still the scope's world, not the global one
        return [first, currentMarker, Current.date() == .distantFuture ? "changed" : nil]
      }
    }
    // Other scopes come and go in the meantime.
    for _ in 0..<100 {
      let (other, otherMarker) = markedWorld()
      withWorld(other) { #expect(currentMarker == otherMarker) }
    }
    #expect(currentMarker != marker)
    gate.open()
    #expect(await value(of: task) == [marker, marker, "changed"])
    #expect(Current.date() != .distantFuture)
  }

  // A scope borrows its world from the caller of `withWorld`; a task that outlives the scope
  // must keep that world alive once the caller has let go of it, and free it when it is done.
  @Test func anUnstructuredTaskKeepsItsScopesWorldAliveAfterTheCallerLetGoOfIt() async {
    let freed = Gate()
    let gate = Gate()
    let (task, marker) = { () -> (Task<[String?], Never>, String) in
      var (world, marker) = markedWorld()
      let probe = OnDeinit { freed.open() }
      world.uuid = { [probe] in
        _ = probe
        return UUID()
      }
      let task = withWorld(world) {
        Task { () async -> [String?] in
          await gate.opened()
          return [
            currentMarker, Current.date() == Date(timeIntervalSinceReferenceDate: 0) ? "mock" : nil,
          ]
        }
      }
      return (task, marker)
    }()
    // Scopes come and go meanwhile.
    nested(40) { _ in }
    #expect(!freed.isOpen)
    gate.open()
    #expect(await value(of: task) == [marker, "mock"])
    await freed.opened()  // the task let go of the scope, and the world went with it
  }

  @Test func deeplyNestedScopesEachSeeTheirOwnWorld() async {
    let seen = nested(80) { depth in currentMarker == "x-\(depth)" }
    #expect(seen == Array(repeating: true, count: 80))
    // Tasks created in them outlive them, each with its own scope's world.
    let gate = Gate()
    let tasks = nested(80) { depth in
      Task { () async -> Bool in
        await gate.opened()
        return currentMarker == "x-\(depth)"
      }
    }
    gate.open()
    for task in tasks { #expect(await value(of: task)) }
    #expect(Self.stillAnsweredInScopes())
  }

  /// Whether scopes still work after the nested ones above ended: a new scope reads its world,
  /// and code outside every scope reads the global one.
  private static func stillAnsweredInScopes() -> Bool {
    let (world, marker) = markedWorld()
    return withWorld(world) { currentMarker == marker } && currentMarker != marker
  }

  /// Enters `depth` nested scopes, the one at depth `d` (from 0) with a world marked `x-d`,
  /// and returns what `body` returns at each depth, outermost first.
  @discardableResult
  private func nested<Result>(_ depth: Int, _ body: (Int) -> Result) -> [Result] {
    func enter(_ level: Int, _ results: inout [Result]) {
      guard level < depth else { return }
      var world = World.mock
      world.preferredLanguages = ["x-\(level)"]
      withWorld(world) {
        results.append(body(level))
        enter(level + 1, &results)
      }
    }
    var results: [Result] = []
    enter(0, &results)
    return results
  }

  @Test func detachedTasksQueuesAndThreadsReadTheGlobalWorld() async {
    let (world, marker) = markedWorld()
    await withWorld(world) {
      #expect(await Task.detached { currentMarker }.value != marker)
      let fromQueue = await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: currentMarker) }
      }
      #expect(fromQueue != marker)
      #expect(onNewThreadBlocking { currentMarker } != marker)
    }
  }

  @Test func carryingTheWorldAlong() async {
    let (world, marker) = markedWorld()
    await withWorld(world) {
      let carried = Current
      let fromQueue = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
          withWorld(carried) { continuation.resume(returning: currentMarker) }
        }
      }
      #expect(fromQueue == marker)
      let detached = await Task.detached { withWorld(carried) { currentMarker } }.value
      #expect(detached == marker)
      #expect(onNewThreadBlocking { withWorld(carried) { currentMarker } } == marker)
    }
  }

  @Test func aHundredTasksInScopesAtOnceNeverSeeEachOthersWorld() async {
    let rendezvous = Rendezvous(count: 100)
    let mismatches = await withTaskGroup(of: Int.self) { group in
      for index in 0..<100 {
        group.addTask {
          await withWorld(.mock) { () async -> Int in
            Current.date = { Date(timeIntervalSince1970: Double(index)) }
            Current.preferredLanguages = ["x-\(index)"]
            var wrong = 0
            for round in 0..<3 {
              if round == 1 { await rendezvous.arrive() }  // all 100 scopes are open now
              if Current.date() != Date(timeIntervalSince1970: Double(index)) { wrong += 1 }
              if Current.preferredLanguages != ["x-\(index)"] { wrong += 1 }
              Current.uuid = { UUID() }  // each scope writes too
              await Task.yield()
            }
            return wrong
          }
        }
      }
      return await group.reduce(0, +)
    }
    #expect(mismatches == 0)
  }

  @Test func eightThreadsEnteringAndLeavingScopesNeverSeeEachOthersWorld() {
    let threads = 8
    // Each forced round holds every thread inside its own scope at once, at a barrier, before
    // it reads; the free rounds that follow enter and leave as fast as the threads can.
    let forced = stressVolume(full: 200, quick: 20)
    let free = stressVolume(full: 20_000, quick: 2_000)
    let barriers = (0..<forced).map { _ in Barrier(parties: threads) }
    let correct = Counter()
    onThreadsBlocking(threads) { thread in
      for round in 0..<forced {
        var world = World.mock
        world.preferredLanguages = ["x-\(thread)-\(round)"]
        withWorld(world) {
          barriers[round].arriveAndWait()
          if currentMarker == "x-\(thread)-\(round)" { correct.increment() }
        }
      }
      for round in 0..<free {
        let stamp = Date(timeIntervalSince1970: Double(thread * free + round))
        withWorld(.mock) {
          withWorld({ $0.date = { stamp } }) {
            if Current.date() == stamp { correct.increment() }
          }
        }
      }
    }
    #expect(correct.value == threads * (forced + free))
  }

  @Test func aScopeReleasesItsWorldWhenItEnds() async {
    weak var weakSync: Canary?
    weak var weakAsync: Canary?
    // No expectation inside the scope: a passing `#expect` on `weakSync` could hand a strong
    // copy of it to the test framework.
    var aliveInScope = false
    do {
      let tracked = Canary()
      weakSync = tracked
      withWorld(.mock) {
        withWorld({
          $0.date = { [tracked] in
            _ = tracked; return .distantPast
          }
        }) {
          aliveInScope = weakSync != nil
        }
      }
    }
    #expect(aliveInScope)
    #expect(weakSync == nil)
    do {
      let tracked = Canary()
      weakAsync = tracked
      await withWorld(.mock) { () async in
        await withWorld({
          $0.uuid = { [tracked] in
            _ = tracked; return UUID()
          }
        }) {
          await Task.yield()
        }
      }
    }
    #expect(weakAsync == nil)
  }

  @Test func aDeinitRunByAssigningAScopesWorldCanReadAndAssignCurrent() {
    let seen = Recorder<String?>()
    let (world, marker) = markedWorld()
    withWorld(world) {
      do {
        let probe = OnDeinit {
          seen.record(currentMarker)
          Current.date = { .distantFuture }
        }
        Current.date = { [probe] in
          _ = probe
          return .distantPast
        }
      }
      Current.date = { .distantPast }  // releases the closure that holds the probe
      #expect(seen.all == [marker])
      #expect(Current.date() == .distantFuture)
    }
  }

  @Test func aDeinitRunAsAScopeEndsSeesTheOuterWorldAndCanAssignIt() async {
    let seen = Recorder<String?>()
    let (outer, outerMarker) = markedWorld()
    withWorld(outer) {
      withWorld(.mock) {
        let probe = OnDeinit {
          seen.record(currentMarker)
          Current.locale = Locale(identifier: "fr_FR")
          withWorld(.mock) { seen.record(currentMarker) }
        }
        Current.date = { [probe] in
          _ = probe
          return .distantPast
        }
      }
      #expect(seen.all == [outerMarker, nil])
      #expect(Current.locale.identifier == "fr_FR")
    }
    // The same from a task, whose scope ends on the task's executor.
    let fromTask = Recorder<String?>()
    await withWorld(outer) {
      await withWorld(.mock) { () async in
        let probe = OnDeinit { fromTask.record(currentMarker) }
        Current.date = { [probe] in
          _ = probe
          return .distantPast
        }
        await Task.yield()
      }
    }
    #expect(fromTask.all == [outerMarker])
  }

  @Test func aScopesWorldReplacedDuringAReadOfItLivesUntilTheReadEnds() {
    withWorld(.mock) { expectAWorldReplacedDuringAReadToLiveUntilTheReadEnds() }
  }

  @Test func anAsyncMethodOfCurrentKeepsItsWorldWhileItIsSuspended() async {
    let (first, firstMarker) = markedWorld()
    let (second, secondMarker) = markedWorld()
    // The world the scope started with, and a world assigned inside the scope, each replaced
    // by a child task while the method that reads it is suspended.
    for assignFirst in [false, true] {
      await withWorld(assignFirst ? .mock : first) { () async in
        if assignFirst { Current = first }
        let entered = Gate()
        let gate = Gate()
        async let replaced: Void = {
          await entered.opened()  // the method has read `Current` and is running
          Current = second  // the scope's box is shared with its child tasks
          gate.open()
        }()
        #expect(await Current.markerOnceOpened(gate, entered: entered) == firstMarker)
        await replaced
        #expect(currentMarker == secondMarker)
      }
    }
  }
}
