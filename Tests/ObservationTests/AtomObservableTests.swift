import Foundation
import Observation
import Testing
import TinyTestSupport

@testable import TinyObservation

/// A model that holds atoms, as a SwiftUI view model would.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
final class CounterModel: @unchecked Sendable {  // safe here: each test writes it from one thread
  let count = Atom(0)
  var title = "Counter"
  var selection = Atom("first")
}

/// Something that is not `Equatable`, for derived atoms that report every recomputation.
struct Parity: Sendable {
  let isEven: Bool
}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomObservableTests {
  @Test func aTrackedReadFiresOnChangeOnceForTheNextChange() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let fired = Counter()
    let read = withObservationTracking {
      atom.value
    } onChange: {
      _ = fired.increment()
    }
    #expect(read == 0)
    #expect(fired.value == 0)
    atom.set(1)
    #expect(fired.value == 1)
    atom.update { $0 += 1 }
    #expect(fired.value == 1)  // a registration fires once; tracking again registers again
  }

  @Test func eachRegistrationFiresOnceHoweverOftenItsClosureRead() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let derived = DerivedAtom(atom) { $0 * 10 }
    let seen = Recorder<String>()
    _ = withObservationTracking {
      atom.value + atom.value + derived.value + derived.value
    } onChange: {
      seen.record("both")
    }
    _ = withObservationTracking {
      atom.value
    } onChange: {
      seen.record("atom")
    }
    _ = withObservationTracking {
      derived.value
    } onChange: {
      seen.record("derived")
    }
    atom.set(1)  // changes both: each registration fires once
    atom.set(2)
    // Observation fires the registrations of one report in no set order; the derived atom
    // reports after its source.
    #expect(seen.all.sorted() == ["atom", "both", "derived"])
    #expect(seen.all.last == "derived")
  }

  @Test func setsFromManyThreadsEachFireTheRegistrationArmedBeforeThem() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let derived = DerivedAtom(atom) { $0 + 1 }
    let atomFired = Counter()
    let derivedFired = Counter()
    for round in 1...20 {
      _ = withObservationTracking {
        atom.value
      } onChange: {
        _ = atomFired.increment()
      }
      _ = withObservationTracking {
        derived.value
      } onChange: {
        _ = derivedFired.increment()
      }
      await onNewThread { atom.set(round) }
      #expect(atomFired.value == round)
      #expect(derivedFired.value == round)
    }
  }

  @Test func onChangeRunsAfterTheChangeWasStoredOnTheThreadThatMadeIt() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom("")
    let seen = Recorder<(value: String, thread: ObjectIdentifier)>()
    _ = withObservationTracking {
      atom.value
    } onChange: {
      seen.record((atom.value, currentThread()))
    }
    let setter = onNewThreadBlocking { () -> ObjectIdentifier in
      atom.set("from another thread")
      return currentThread()
    }
    #expect(seen.all.map(\.value) == ["from another thread"])
    #expect(seen.all.map(\.thread) == [setter])
  }

  @Test func readsOutsideTrackingRegisterNothing() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let other = Atom(0)
    let fired = Counter()
    _ = withObservationTracking {
      other.value
    } onChange: {
      _ = fired.increment()
    }
    _ = atom.value  // outside the tracking closure: joins no registration
    atom.set(1)
    #expect(fired.value == 0)
    #expect(atom.reportsToObservation == false)  // an untracked read arms nothing
    other.set(1)
    #expect(fired.value == 1)
  }

  @Test func anAtomOnlyUpdatedWatchedAndReadOutsideTrackingNeverReportsToTheRegistrar() {
    let atom = Atom(0)
    let token = atom.watch { _ in }
    atom.set(1)
    atom.update { $0 += 1 }
    _ = atom.compareAndSet(expected: 2, to: 3)
    _ = atom.value
    #expect(atom.reportsToObservation == false)
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    _ = withObservationTracking {
      atom.value
    } onChange: {
    }
    #expect(atom.reportsToObservation == true)
    token.cancel()
  }

  @Test func anAtomStopsReportingOnceNoRegistrationWaits() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let fired = Counter()
    _ = withObservationTracking {
      atom.value
    } onChange: {
      _ = fired.increment()
    }
    #expect(atom.reportsToObservation)
    atom.set(1)  // fires the registration
    atom.set(2)  // reports once more, finds nothing, and lowers the flag
    #expect(atom.reportsToObservation == false)
    atom.set(3)
    #expect(fired.value == 1)
  }

  @Test func everyUpdateReportsEvenToAnEqualValueButNotAFailedOrThrowingOne() throws {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(1)
    let fired = Counter()
    func track() {
      _ = withObservationTracking {
        atom.value
      } onChange: {
        _ = fired.increment()
      }
    }
    track()
    atom.set(1)  // equal: still a change, as for the watchers
    #expect(fired.value == 1)
    track()
    #expect(atom.compareAndSet(expected: 5, to: 6) == false)
    #expect(throws: Oops.self) {
      try atom.update { (_: inout Int) throws(Oops) in throw Oops(code: 1) }
    }
    #expect(fired.value == 1)
    #expect(atom.compareAndSet(expected: 1, to: 2))
    #expect(fired.value == 2)
  }

  @Test func aDerivedAtomsReadIsTrackedAndRecomputationsReport() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let first = Atom(1)
    let second = Atom(2)
    let sum = DerivedAtom(first, second) { $0 + $1 }
    let seen = Recorder<Int>()
    func track() {
      _ = withObservationTracking {
        sum.value
      } onChange: {
        seen.record(sum.value)
      }
    }
    track()
    first.set(1)  // recomputed to an equal value: nothing changed, nothing reported
    #expect(seen.all == [])
    second.set(5)
    #expect(seen.all == [6])  // onChange reads the recomputed value
    track()
    let parity = DerivedAtom(first) { Parity(isEven: $0.isMultiple(of: 2)) }
    let parityChanges = Counter()
    _ = withObservationTracking {
      parity.value
    } onChange: {
      _ = parityChanges.increment()
    }
    first.set(3)  // not Equatable: every recomputation is a change
    #expect(parityChanges.value == 1)
    #expect(seen.all == [6, 8])
  }

  @Test func optimisticLayersAndRollbacksReportButASuccessfulCommitDoesNot() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let starred = Atom(false)
    let seen = Recorder<Bool>()
    @Sendable func track() {
      _ = withObservationTracking {
        starred.value
      } onChange: {
        seen.record(starred.value)
      }
    }
    track()
    await #expect(throws: Oops.self) {
      try await starred.update(optimistically: { $0 = true }) { _ in
        #expect(seen.all == [true])  // the layer was shown, and reported
        track()
        throw Oops(code: 1)
      }
    }
    #expect(seen.all == [true, false])  // the rollback reported
    track()
    _ = try? await starred.update(optimistically: { $0 = true }) { _ in track() }
    #expect(seen.all == [true, false, true])  // the layer; the commit's success changes nothing
    starred.set(false)
    #expect(seen.all == [true, false, true, false])
  }

  @Test func aModelThatHoldsAtomsIsTrackedThroughThem() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let model = CounterModel()
    let seen = Recorder<String>()
    @Sendable func render() -> String {
      "\(model.title): \(model.count.value), \(model.selection.value)"
    }
    let rendered = withObservationTracking {
      render()
    } onChange: {
      seen.record("count")
    }
    #expect(rendered == "Counter: 0, first")
    model.count.update { $0 += 1 }  // an atom the model holds
    #expect(seen.all == ["count"])
    _ = withObservationTracking {
      render()
    } onChange: {
      seen.record("selection atom")
    }
    model.selection.set("second")
    _ = withObservationTracking {
      render()
    } onChange: {
      seen.record("selection property")
    }
    model.selection = Atom("third")  // the model's own property
    _ = withObservationTracking {
      render()
    } onChange: {
      seen.record("title")
    }
    model.title = "Clicks"
    #expect(seen.all == ["count", "selection atom", "selection property", "title"])
    #expect(render() == "Clicks: 1, third")
  }

  @Test func onChangeMayUseTheAtomItTracks() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let seen = Recorder<Int>()
    @Sendable func track() {
      let value = withObservationTracking {
        atom.value
      } onChange: {
        if atom.value < 3 { atom.update { $0 += 1 } }  // delivered after this report
        track()
      }
      seen.record(value)
    }
    track()
    atom.set(1)
    #expect(atom.value == 3)
    // The report of 1 stores 2 and re-arms (reading 2); the report of 2 stores 3 and re-arms
    // (reading 3); the report of 3 re-arms (reading 3).
    #expect(seen.all == [0, 2, 3, 3])
  }

  @Test func aRegistrationsHandlerReleasedAfterItFiresMayUseTheAtom() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let atom = Atom(0)
    let fired = Counter()
    do {
      let onRelease = OnDeinit {
        _ = atom.value
        _ = withObservationTracking {
          atom.value
        } onChange: {
          _ = fired.increment()
        }
        atom.set(99)  // reaches the registration made just above
      }
      _ = withObservationTracking {
        atom.value
      } onChange: {
        _ = onRelease
      }
    }
    atom.set(1)  // fires, then Observation releases the handler
    #expect(atom.value == 99)
    #expect(fired.value == 1)
  }

  @Test func releasingATrackedAtomRunsNoHandlerUnderALock() {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let other = Atom(0)
    do {
      let atom = Atom(0)
      _ = withObservationTracking {
        atom.value
      } onChange: {
        other.set(other.value + 1)
      }
      _ = withObservationTracking {
        atom.value
      } onChange: {
        _ = other.value
      }
    }
    // Releasing the atom releases its registrar, which may call a registered handler: it runs
    // outside every lock, and may use other atoms.
    #expect(other.value <= 1)
  }

  /// Eight threads increment an atom while a tracker re-arms from inside each `onChange`, the
  /// way a view re-renders after each invalidation.
  ///
  /// Observation's rule is one-shot: a registration fires once, for the first change after it was
  /// stored, and the re-arming read then sees that change or a later one. Changes made between
  /// the firing and the re-arming read are reported to nothing, and need not be: that read sees
  /// them. So "missed" means a change after which no `onChange` runs whose re-arming read
  /// returns it or a later value; in particular, the last read must see the final value.
  @Test func noChangeIsMissedWhileEightThreadsUpdateAndTrackingReArms() async {
    guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else { return }
    let perThread = stressVolume(full: 20_000, quick: 1_000)
    let atom = Atom(0)
    let reads = Recorder<Int>()
    @Sendable func track() {
      reads.record(
        withObservationTracking {
          atom.value
        } onChange: {
          track()
        })
    }
    track()
    await onThreads(8) { _ in
      for _ in 0..<perThread { atom.update { $0 += 1 } }
    }
    let seen = reads.all
    #expect(atom.value == 8 * perThread)
    #expect(seen.last == 8 * perThread)  // the final change was seen
    // Reports arrive in the order of the changes: no read goes back to an older value.
    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
    #expect(seen.count <= 8 * perThread + 1)  // at most one report per change
  }
}
