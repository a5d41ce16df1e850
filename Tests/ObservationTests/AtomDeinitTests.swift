import Testing
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

/// A `deinit` is user code: every value and closure an atom stores is released after the atom's
/// lock is, so a `deinit` that calls back into the same atom neither traps nor hangs.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct AtomDeinitTests {
  /// What a `deinit` does with the atom that released it.
  enum Reentry: String, CaseIterable, Sendable {
    case read, set, update, watchAndCancel, compareAndSet
  }

  /// Calls back into `atom` the way `reentry` says, and records it.
  static func reenter(_ atom: Atom<Probe>?, _ reentry: Reentry, _ log: Recorder<String>) {
    guard let atom else { return log.record("atom gone") }
    switch reentry {
    case .read:
      _ = atom.value
    case .set:
      atom.set(Probe(100))
    case .update:
      atom.update { $0 = Probe($0.id + 1) }
    case .watchAndCancel:
      atom.watch(includingInitial: true) { _ in }.cancel()
    case .compareAndSet:
      atom.compareAndSet(expected: Probe(-1), to: Probe(-2))
    }
    log.record("\(reentry)")
  }

  /// A probe whose release calls back into `atom` (reached through `later`).
  static func probe(
    _ id: Int, _ later: Later<Atom<Probe>>, _ reentry: Reentry, _ log: Recorder<String>
  ) -> Probe {
    Probe(id) { [later] in reenter(later.value, reentry, log) }
  }

  @Test(
    "a replaced value's deinit may use the atom",
    arguments: Reentry.allCases, [false, true])
  func replacedValue(reentry: Reentry, watching: Bool) {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let token = watching ? atom.watch { _ in } : nil
    atom.set(Self.probe(1, later, reentry, log))
    atom.set(Probe(2))  // releases probe 1: its deinit uses the atom
    #expect(log.all == ["\(reentry)"])
    atom.set(Self.probe(3, later, reentry, log))
    atom.update { $0 = Probe(4) }
    #expect(log.all == ["\(reentry)", "\(reentry)"])
    atom.set(Self.probe(5, later, reentry, log))
    #expect(atom.compareAndSet(expected: Probe(5), to: Probe(6)))
    #expect(log.count == 3)
    token?.cancel()
  }

  @Test func whatAThrowingBodyLeftBehindIsReleasedAfterUnlocking() {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    for watching in [false, true] {
      let token = watching ? atom.watch { _ in } : nil
      #expect(throws: Oops(code: 1)) {
        try atom.update { (value: inout Probe) throws(Oops) in
          value = Self.probe(1, later, .read, log)
          throw Oops(code: 1)
        }
      }
      token?.cancel()
    }
    #expect(log.all == ["read", "read"])
    #expect(atom.value.id == 0)
  }

  @Test func whatAThrowingBodyLeftBehindWhileLayersArePendingIsReleasedAfterUnlocking()
    async throws
  {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let started = Gate()
    let finish = Gate()
    let save = Task {
      try await atom.update(optimistically: { $0 = Probe($0.id + 10) }) { _ in
        started.open()
        await finish.opened()
      }
    }
    await started.opened()
    #expect(throws: Oops(code: 1)) {
      try atom.update { (value: inout Probe) throws(Oops) in
        value = Self.probe(1, later, .read, log)  // changes the confirmed value's copy
        throw Oops(code: 1)
      }
    }
    #expect(log.all == ["read"])
    finish.open()
    _ = try await value(of: save)
    #expect(atom.value.id == 10)
  }

  @Test(
    "a confirmed value replaced while optimistic updates are pending is released after unlocking",
    arguments: Reentry.allCases)
  func replacedUnderLayers(reentry: Reentry) async throws {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Self.probe(0, later, reentry, log))
    later.value = atom
    let started = Gate()
    let finish = Gate()
    let save = Task {
      try await atom.update(optimistically: { $0 = Probe($0.id + 10) }) { _ in
        started.open()
        await finish.opened()
      }
    }
    await started.opened()
    atom.set(Probe(1))  // replaces the confirmed probe 0
    #expect(log.all == ["\(reentry)"])
    finish.open()
    _ = try await value(of: save)
    #expect(atom.pendingLayerCount == 0)
  }

  /// What recomputes the visible value over pending optimistic layers.
  enum Recomputation: String, CaseIterable, Sendable {
    /// A plain set under two pending layers.
    case plainSet
    /// The first of three pending layers rolls back.
    case rollBack
  }

  @Test(
    "a value a pending layer replaces while the visible value is recomputed is released after unlocking",
    arguments: Recomputation.allCases)
  func layersRecomputed(_ recomputation: Recomputation) async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let shown = (1...3).map { _ in Gate() }  // layer n's value, probe n, was shown
    let token = atom.watch { change in
      if (1...3).contains(change.new.id) { shown[change.new.id - 1].open() }
    }
    let started = Gate()
    let finish = Gate()
    let first = Task {
      try await atom.update(optimistically: { $0 = Self.probe(1, later, .read, log) }) { _ in
        started.open()
        await finish.opened()
        if recomputation == .rollBack { throw Oops(code: 1) }
      }
    }
    await started.opened()
    var others: [Task<Probe, any Error>] = []
    for id in 2...(recomputation == .plainSet ? 2 : 3) {
      others.append(
        Task {
          try await atom.update(optimistically: { $0 = Self.probe(id, later, .read, log) }) { _ in }
        })
      await shown[id - 1].opened()
    }
    if recomputation == .plainSet {
      atom.set(Probe(10))  // applies layer 1, then layer 2 over its probe
      #expect(atom.value.id == 2)
    }
    finish.open()  // a rollback applies layer 2, then layer 3 over its probe
    switch await result(of: first) {
    case .success: #expect(recomputation == .plainSet)
    case .failure(let error): #expect(error as? Oops == Oops(code: 1))
    }
    for task in others { #expect((try? await value(of: task)) != nil) }
    #expect(atom.value.id == (recomputation == .plainSet ? 2 : 3))
    #expect(atom.pendingLayerCount == 0)
    #expect(!log.all.isEmpty && log.all.allSatisfy { $0 == "read" })
    token.cancel()
  }

  @Test func aCommitThatOutlivedAPlainUpdateReleasesTheConfirmedValueItReplacedAfterUnlocking()
    async throws
  {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let started = Gate()
    let finish = Gate()
    let save = Task {
      try await atom.update(optimistically: { $0 = Probe($0.id + 10) }) { _ in
        started.open()
        await finish.opened()
      }
    }
    await started.opened()
    atom.set(Self.probe(1, later, .read, log))  // the confirmed value under the layer
    #expect(log.all.isEmpty)
    finish.open()
    _ = try await value(of: save)  // the layer re-applies to probe 1, replacing it
    #expect(log.all == ["read"])
    #expect(atom.value.id == 11)
  }

  @Test func aRolledBackLayersVisibleValueIsReleasedAfterUnlocking() async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    await #expect(throws: Oops(code: 4)) {
      try await atom.update(optimistically: { $0 = Self.probe(1, later, .read, log) }) { _ in
        throw Oops(code: 4)
      }
    }
    #expect(log.count >= 1)  // every probe the change made was released, reading the atom
    #expect(atom.value.id == 0)
  }

  @Test(
    "an optimistic change is released after unlocking, committed or rolled back",
    arguments: [false, true])
  func optimisticChange(fails: Bool) async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    do {
      let guardian = Self.probe(-1, later, .set, log)
      try await atom.update(optimistically: { value in
        _ = guardian  // the change holds it: released with the settled layer
        value = Probe(value.id + 1)
      }) { _ in
        if fails { throw Oops(code: 3) }
      }
    } catch {
      #expect(error as? Oops == Oops(code: 3))
    }
    #expect(log.all == ["set"])
    #expect(atom.value.id == 100)  // the deinit's set
    #expect(atom.pendingLayerCount == 0)
  }

  @Test func aCommitsCapturesMayUseTheAtomWhenReleased() async throws {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    do {
      let guardian = Self.probe(-1, later, .update, log)
      try await atom.update(optimistically: { $0 = Probe(1) }) { _ in _ = guardian }
    }
    #expect(log.all == ["update"])
    #expect(atom.value.id == 2)
  }

  @Test(
    "a watcher's handler is released after unlocking",
    arguments: Reentry.allCases, [false, true])
  func watcherHandler(reentry: Reentry, onMain: Bool) async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let token: WatchToken
    do {
      let guardian = Self.probe(-1, later, reentry, log)
      token =
        onMain
        ? atom.watchOnMain { _ in _ = guardian } : atom.watch { _ in _ = guardian }
    }
    token.cancel()  // releases the handler, and the probe it holds
    #expect(log.all == ["\(reentry)"])
    #expect(atom.watcherCount == 0)
  }

  @Test func aWatcherCancellingItselfReleasesItsHandlerAfterUnlocking() {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let holder = Locked<WatchToken?>(nil)
    do {
      let guardian = Self.probe(-1, later, .set, log)
      let token = atom.watch { change in
        _ = guardian
        if change.new.id == 1 { holder.withLock { $0 }?.cancel() }
      }
      holder.withLock { $0 = token }
    }
    atom.set(Probe(1))
    holder.withLock { $0 = nil }  // the last reference to the token
    #expect(log.all == ["set"])
    #expect(atom.value.id == 100)
  }

  @Test func changesDroppedFromAMainQueueWatcherAreReleasedAfterUnlocking() async {
    let later = Later<Atom<Probe>>()
    let log = Recorder<String>()
    let atom = Atom(Probe(0))
    later.value = atom
    let seen = Recorder<Int>()
    let token = atom.watchOnMain { seen.record($0.new.id) }
    await MainActor.run {
      // The main queue is busy here: the changes wait for it, then the cancel drops them.
      startThread {
        atom.set(Self.probe(1, later, .read, log))
        atom.set(Probe(2))
      }.wait()
      token.cancel()
    }
    await mainQueueTurn()
    #expect(seen.all.isEmpty)
    #expect(log.all == ["read"])
  }

  @Test func releasingAnAtomReleasesItsWatchersWhoseCapturesMayUseOtherAtoms() {
    let other = Atom(0)
    let token: WatchToken
    do {
      let atom = Atom(0)
      let guardian = OnDeinit { other.set(other.value + 1) }
      token = atom.watch { _ in _ = guardian }
    }
    #expect(other.value == 1)  // the atom was released with its watcher
    token.cancel()
  }
}
