import Foundation
import Testing
import TinyTestSupport

@testable import TinyObservation

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomOptimisticTests {
  struct Doc: Equatable {
    var title = "Draft"
    var stars = 0
    var tags: [String] = []
  }

  @Test func aSuccessfulCommitShowsTheChangeAtOnceAndKeepsIt() async throws {
    let doc = Atom(Doc())
    let seen = Recorder<AtomChange<Doc>>()
    let token = doc.watch { seen.record($0) }
    let sent = Recorder<Doc>()
    let committed = try await doc.update(optimistically: { $0.stars += 1 }) { value in
      #expect(doc.value.stars == 1)  // visible before the commit runs
      #expect(doc.confirmedValue.stars == 0)
      sent.record(value)
    }
    #expect(committed.stars == 1)
    #expect(sent.all.map(\.stars) == [1])
    #expect(doc.value.stars == 1)
    #expect(doc.confirmedValue.stars == 1)
    #expect(seen.all.map(\.new.stars) == [1])  // success delivers nothing more
    #expect(doc.pendingLayerCount == 0)
    token.cancel()
  }

  @Test func aFailingCommitRollsBackWithTheErrorAndRethrows() async {
    let doc = Atom(Doc())
    let seen = Recorder<AtomChange<Doc>>()
    let token = doc.watch { seen.record($0) }
    await #expect(throws: Oops(code: 500)) {
      try await doc.update(optimistically: { $0.title = "Final" }) { _ in
        throw Oops(code: 500)
      }
    }
    #expect(doc.value.title == "Draft")
    let changes = seen.all
    #expect(changes.map(\.new.title) == ["Final", "Draft"])
    #expect(changes.map(\.old.title) == ["Draft", "Final"])
    #expect(changes[0].error == nil)
    #expect((changes[1].error as? Oops) == Oops(code: 500))
    #expect(doc.pendingLayerCount == 0)
    token.cancel()
  }

  @Test func compareAndSetAgainstASnapshotTakenBeforeACommitSettledComparesAgain() async throws {
    // `==` runs outside the lock, on a snapshot of the confirmed value; the commit settles
    // while it runs, so the snapshot is stale and must not be replaced.
    let inCompare = Gate()
    let resumeCompare = Gate()
    let once = Once()
    let atom = Atom(
      Compared(0) {
        guard once.first() else { return }
        inCompare.open()
        resumeCompare.wait()
      })
    let committing = Gate()
    let finishCommit = Gate()
    let update = Task {
      try await atom.update(optimistically: { $0 = Compared(1) }) { _ in
        committing.open()
        await finishCommit.opened()
      }
    }
    await committing.opened()
    let swapped = Recorder<Bool>()
    let comparer = startThread {
      swapped.record(atom.compareAndSet(expected: Compared(0), to: Compared(5)))
    }
    await inCompare.opened()  // the snapshot, confirmed value 0, is being compared…
    finishCommit.open()
    _ = try await value(of: update)  // …while the commit confirms 1
    resumeCompare.open()
    await comparer.opened()
    #expect(swapped.all == [false])  // compared again, with 1
    #expect(atom.value.id == 1)
    #expect(atom.confirmedValue.id == 1)
  }

  /// Three optimistic updates in flight; the first commit's outcome is `firstFails`.
  @Test(
    "commits are serialized; each sends its layer over the then-confirmed value",
    arguments: [false, true])
  func commitsAreSerialized(firstFails: Bool) async throws {
    let doc = Atom(Doc())
    let sent = Recorder<Int>()
    let firstStarted = Gate()
    let finishFirst = Gate()
    let allShown = Gate()
    let token = doc.watch { if $0.new.stars == 111 { allShown.open() } }
    let first = Task {
      try await doc.update(optimistically: { $0.stars += 1 }) { value in
        sent.record(value.stars)
        firstStarted.open()
        await finishFirst.opened()
        if firstFails { throw Oops(code: 1) }
      }
    }
    await firstStarted.opened()
    let later = [10, 100].map { stars in
      Task {
        try await doc.update(optimistically: { $0.stars += stars }) { value in
          sent.record(value.stars)
        }
      }
    }
    await allShown.opened()
    #expect(doc.value.stars == 111)  // every layer visible
    #expect(sent.all == [1])  // the later commits wait for the first to settle
    finishFirst.open()
    let firstResult = await result(of: first)
    for task in later { _ = try await value(of: task) }
    #expect((try? firstResult.get()) == (firstFails ? nil : Doc(stars: 1)))
    // Each later commit sends its own layer over the confirmed value: never a layer that is
    // still pending, never the star that rolled back.
    let expected = firstFails ? [1, 10, 110] : [1, 11, 111]
    let orders = [expected, [expected[0], expected[1] + 100 - 10, expected[2]]]
    #expect(orders.contains(sent.all))  // the two later tasks may take their turns either way
    #expect(doc.value.stars == (firstFails ? 110 : 111))  // only the failed layer was removed
    #expect(doc.confirmedValue == doc.value)
    #expect(doc.pendingLayerCount == 0)
    token.cancel()
  }

  @Test func aPlainUpdateWhileLayersArePendingChangesTheConfirmedValue() async throws {
    let doc = Atom(Doc())
    let started = Gate()
    let finish = Gate()
    let seen = Recorder<AtomChange<Doc>>()
    let token = doc.watch { seen.record($0) }
    let save = Task {
      try await doc.update(optimistically: { $0.tags.append("starred") }) { value in
        #expect(value.tags == ["starred"])
        started.open()
        await finish.opened()
      }
    }
    await started.opened()
    // A server push while the save is in flight: applies under the pending layer.
    let visible = doc.update { $0.title = "Pushed" }
    #expect(visible == Doc(title: "Pushed", tags: ["starred"]))
    #expect(doc.confirmedValue == Doc(title: "Pushed"))
    doc.set(Doc(title: "Replaced", tags: ["old"]))
    #expect(doc.value == Doc(title: "Replaced", tags: ["old", "starred"]))
    #expect(doc.compareAndSet(expected: Doc(title: "Replaced", tags: ["old"]), to: Doc()))
    #expect(doc.value == Doc(tags: ["starred"]))  // compared and replaced the confirmed value
    finish.open()
    _ = try await value(of: save)
    // The confirmed value moved during the commit: the layer re-applies to the current one.
    #expect(doc.confirmedValue == Doc(tags: ["starred"]))
    #expect(doc.value == Doc(tags: ["starred"]))
    #expect(seen.all.map(\.new.title) == ["Draft", "Pushed", "Replaced", "Draft"])
    token.cancel()
  }

  @Test func aThrowingUpdateWhileLayersArePendingChangesNothing() async throws {
    let doc = Atom(Doc())
    let started = Gate()
    let finish = Gate()
    let save = Task {
      try await doc.update(optimistically: { $0.stars = 5 }) { _ in
        started.open()
        await finish.opened()
      }
    }
    await started.opened()
    #expect(throws: Oops(code: 2)) {
      try doc.update { (value: inout Doc) throws(Oops) in
        value.title = "Broken"
        throw Oops(code: 2)
      }
    }
    #expect(doc.value == Doc(stars: 5))
    #expect(doc.confirmedValue == Doc())
    finish.open()
    _ = try await value(of: save)
    #expect(doc.value == Doc(stars: 5))
  }

  @Test func aLayerAddedWhileAnotherIsPendingLeavesThatOneToRollBack() async throws {
    let doc = Atom(Doc())
    let started = Gate()
    let fail = Gate()
    let first = Task {
      try await doc.update(optimistically: { $0.stars = 1 }) { _ in
        started.open()
        await fail.opened()
        throw Oops(code: 1)
      }
    }
    await started.opened()
    let shown = Gate()
    let second = Task {
      try await doc.update(optimistically: { value in
        value.tags.append("second")
        shown.open()
      }) { _ in }
    }
    await shown.opened()
    #expect(doc.value == Doc(stars: 1, tags: ["second"]))
    #expect(doc.pendingLayerCount == 2)
    fail.open()
    await #expect(throws: Oops(code: 1)) { try await result(of: first).get() }
    _ = try await value(of: second)
    #expect(doc.value == Doc(tags: ["second"]))  // the first layer rolled back, the second kept
    #expect(doc.confirmedValue == Doc(tags: ["second"]))
  }

  @Test func manyConcurrentOptimisticUpdatesAllCommitInTurn() async throws {
    let count = Atom(0)
    let inFlight = Atom(0)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<50 {
        group.addTask {
          do {
            try await count.update(optimistically: { $0 += 1 }) { _ in
              #expect(inFlight.update { $0 += 1 } == 1)  // no other commit is running
              inFlight.update { $0 -= 1 }
              if index.isMultiple(of: 5) { throw Oops(code: index) }
            }
          } catch is Oops {}
        }
      }
      try await group.waitForAll()
    }
    #expect(count.value == 40)  // every fifth failed and was rolled back
    #expect(count.confirmedValue == 40)
    #expect(count.pendingLayerCount == 0)
  }

  @Test func anOptimisticUpdateStartedInsideACommitOfTheSameAtomStopsTheProgram() async {
    let direct = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      exitSuccessfullyIfStillRunning()  // a missed trap would hang: fail instead
      let atom = Atom(0)
      _ = try? await atom.update(optimistically: { $0 += 1 }) { _ in
        try await atom.update(optimistically: { $0 += 1 }) { _ in }
      }
    }
    let message = String(decoding: direct?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Atom.update(optimistically:commit:)"))
    #expect(message.contains("inside a commit of the same atom"))
    // A child task inherits the commit's task-local values, so it is caught too.
    await #expect(processExitsWith: .failure) {
      exitSuccessfullyIfStillRunning()  // a missed trap would hang: fail instead
      let atom = Atom(0)
      _ = try? await atom.update(optimistically: { $0 += 1 }) { _ in
        async let nested = atom.update(optimistically: { $0 += 1 }) { _ in }
        _ = try await nested
      }
    }
    await #expect(processExitsWith: .failure) {
      exitSuccessfullyIfStillRunning()  // a missed trap would hang: fail instead
      let atom = Atom(0)
      _ = try? await atom.update(optimistically: { $0 += 1 }) { _ in
        let nested = Task { try await atom.update(optimistically: { $0 += 1 }) { _ in } }
        _ = try await nested.value  // bounded: the exit test's watchdog ends it
      }
    }
  }

  @Test func aCommitMayUpdateOtherAtomsOptimisticallyAndItsOwnPlainly() async throws {
    let doc = Atom(0)
    let audit = Atom(0)
    try await doc.update(optimistically: { $0 += 1 }) { _ in
      try await audit.update(optimistically: { $0 += 1 }) { _ in }  // another atom: fine
      doc.set(10)  // a plain update of the same atom: applies under the pending layer
    }
    #expect(audit.value == 1)
    #expect(doc.value == 11)
    // Once the commit returned, the atom takes optimistic updates again.
    try await doc.update(optimistically: { $0 += 1 }) { _ in }
    #expect(doc.value == 12)
  }

  @Test func anotherTasksOptimisticUpdateWaitsForTheCommitInsteadOfStoppingTheProgram() async throws
  {
    let doc = Atom(0)
    let inCommit = Gate()
    let finish = Gate()
    let first = Task {
      try await doc.update(optimistically: { $0 += 1 }) { _ in
        inCommit.open()
        await finish.opened()
      }
    }
    await inCommit.opened()
    let sent = Recorder<Int>()
    let second = Task {  // not inside the commit: waits its turn
      try await doc.update(optimistically: { $0 += 10 }) { sent.record($0) }
    }
    let shown = Gate()
    let token = doc.watch { if $0.new == 11 { shown.open() } }
    if doc.value != 11 { await shown.opened() }
    #expect(sent.all.isEmpty)
    finish.open()
    _ = try await (first.value, second.value)
    #expect(sent.all == [11])
    token.cancel()
  }
}
