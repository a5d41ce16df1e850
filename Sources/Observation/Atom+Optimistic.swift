extension Atom {
  /// The value without pending optimistic updates: the value their commits started from, with
  /// the commits that succeeded and the plain updates made since. Equal to ``value`` when no
  /// optimistic update is pending.
  public var confirmedValue: Value {
    state.withLock { $0.confirmedValue }
  }

  /// ``update(_:)`` on the path that handles optimistic layers: `body` changes the confirmed
  /// value, and the layers re-apply on top.
  @usableFromInline func update<Failure: Error>(
    confirming body: (inout Value) throws(Failure) -> Void, error: (any Error)?
  ) throws(Failure) -> Value {
    var outcome = Outcome<Value>()
    let value = try state.withLock { (state) throws(Failure) in
      try state.update(confirming: body, error: error, &outcome)
    }
    if let batch = outcome.batch { deliver(batch) }
    return value
  }

  /// Shows a local change at once, then commits it (for example to a server); if the commit
  /// fails, takes back exactly that change and rethrows the error.
  ///
  /// The change is applied to the visible value immediately, and every watcher sees it, as a
  /// *layer* over the confirmed value. Commits are serialized per atom: this one starts after
  /// every earlier optimistic update on the atom has settled, and sends `change` applied to the
  /// then-confirmed value, so `commit` never receives a value that includes a change that later
  /// rolls back.
  ///
  /// - On success, the layer becomes part of the confirmed value; the visible value does not
  ///   change and no change is delivered.
  /// - On failure, only this layer is removed (later pending layers stay), watchers get a change
  ///   whose ``AtomChange/error`` is the error, and the error is rethrown.
  ///
  /// A plain ``update(_:)`` or ``set(_:)`` while layers are pending changes the confirmed value,
  /// and the layers re-apply on top. So `change` can run several times: when it is shown, each
  /// time the confirmed value under it changes, and once to make the value to commit. Make it a
  /// deterministic function of the value, without side effects. Like the body of ``update(_:)``
  /// it runs under the atom's lock, atomically with the change it makes, and must not touch the
  /// atom. The atom releases `change` (and the values it replaced) after unlocking, so their
  /// `deinit`s may use the atom.
  ///
  /// Waiting for earlier commits does not end early when the task is cancelled; `commit` runs in
  /// the caller's task, so cancellation reaches whatever it awaits.
  ///
  /// An optimistic update of this atom started from inside `commit` would wait for this commit
  /// to settle while this commit waits for it. It stops the program with a message naming this
  /// method when it is started in the commit's task or in a task that inherits the commit's
  /// task-local values: a child task (`async let`, a task group) or a `Task {}` created in the
  /// commit, even one the commit does not wait for (start that one after the commit returns).
  /// A detached task or another thread inherits nothing, so an update started there and awaited
  /// by the commit hangs: never make a commit wait for another optimistic update of its atom.
  ///
  /// ```swift
  /// let doc = Atom(Doc(title: "Draft", isStarred: false))
  /// try await doc.update(optimistically: { $0.isStarred = true }) { starred in
  ///   try await api.save(starred)       // watchers already see the star
  /// }
  /// // On failure: the star is gone again, watchers saw a change carrying the error, and
  /// // the error is thrown here.
  /// ```
  ///
  /// - Parameters:
  ///   - change: The local change, applied to the visible value now and to the confirmed value
  ///     for the commit.
  ///   - commit: Saves the changed value; throwing rolls the change back.
  /// - Returns: The value that was committed.
  /// - Throws: The error `commit` threw, after the rollback was delivered.
  @discardableResult
  public func update(
    optimistically change: @escaping @Sendable (inout Value) -> Void,
    commit: @Sendable (Value) async throws -> Void
  ) async throws -> Value {
    if CommitsInProgress.current.contains(where: { $0 === self }) {
      fatalError(nestedCommitMessage)
    }
    let (id, isFirst) = addLayer(change)
    if !isFirst {
      await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
        if state.withLock({ $0.park(layer: id, turn) }) {
          turn.resume()
        }
      }
    }
    let (sent, version) = state.withLock { $0.valueToCommit(layer: id) }
    do {
      try await CommitsInProgress.$current.withValue(CommitsInProgress.current + [self]) {
        try await commit(sent)
      }
    } catch {
      rollBack(layer: id, error: error)
      throw error
    }
    confirm(layer: id, sent: sent, version: version)
    return sent
  }

  // Each transition hands back what it replaced or dropped (values, the settled layer's change),
  // released when the call returns, after unlocking: their `deinit`s may use the atom.

  /// Adds and shows a layer; returns its id and whether its commit may start at once.
  private func addLayer(
    _ change: @escaping @Sendable (inout Value) -> Void
  ) -> (id: UInt64, isFirst: Bool) {
    var outcome = Outcome<Value>()
    let (id, isFirst) = state.withLock { $0.addLayer(change, &outcome) }
    if let batch = outcome.batch { deliver(batch) }
    return (id, isFirst)
  }

  /// Drops the failed layer `id`, delivers the change carrying `error`, and hands the turn on.
  private func rollBack(layer id: UInt64, error: any Error) {
    var outcome = Outcome<Value>()
    let (next, _) = state.withLock { $0.rollBack(layer: id, error: error, &outcome) }
    if let batch = outcome.batch { deliver(batch) }
    next?.resume()
  }

  /// Settles the committed layer `id` and hands the turn on.
  private func confirm(layer id: UInt64, sent: Value, version: UInt64) {
    let (next, _) = state.withLock { $0.confirm(layer: id, sent: sent, version: version) }
    next?.resume()
  }

  /// The number of optimistic updates whose commit has not settled, for tests.
  var pendingLayerCount: Int {
    state.withLock { $0.layers?.count ?? 0 }
  }
}

extension AtomState {
  /// Applies `body` to a copy of the confirmed value and shows the result, with the pending
  /// layers, if any, re-applied on top; returns the visible value. When `body` throws, nothing
  /// changes, and the copy it left behind goes to `outcome`.
  mutating func update<Failure: Error>(
    confirming body: (inout Value) throws(Failure) -> Void, error: (any Error)?,
    _ outcome: inout Outcome<Value>
  ) throws(Failure) -> Value {
    var confirmed = confirmedValue
    do throws(Failure) {
      try body(&confirmed)
    } catch {
      outcome.replaced = confirmed
      throw error
    }
    guard var layers else {
      return show(confirmed, error: error, &outcome.batch, &outcome.replaced)
    }
    self.layers = nil  // keeps `layers` uniquely referenced while it changes
    var replaced = [layers.setConfirmed(confirmed)]
    let visible = layers.visible(keeping: &replaced)
    self.layers = layers
    outcome.replacedUnderLayers = replaced
    return show(visible, error: error, &outcome.batch, &outcome.replaced)
  }

  /// Adds a layer and shows it. Returns its id, and whether its commit may start at once.
  mutating func addLayer(
    _ apply: @escaping @Sendable (inout Value) -> Void, _ outcome: inout Outcome<Value>
  ) -> (id: UInt64, isFirst: Bool) {
    let id = nextLayerID
    nextLayerID &+= 1
    var layers = self.layers ?? Layers(confirmed: value)
    self.layers = nil
    let isFirst = layers.append(id: id, apply)
    self.layers = layers
    var new = value
    apply(&new)
    _ = show(new, error: nil, &outcome.batch, &outcome.replaced)
    return (id, isFirst)
  }

  /// Parks the waiter of layer `id`; returns `true` (parking nothing) when it is its turn.
  mutating func park(layer id: UInt64, _ waiter: Waiter) -> Bool {
    layers?.park(id: id, waiter) ?? true
  }

  /// The value to commit for layer `id` (its change applied to the confirmed value).
  func valueToCommit(layer id: UInt64) -> (value: Value, version: UInt64) {
    guard let layers else { fatalError("TinyObservation: layer \(id) committed with none pending") }
    return layers.valueToCommit(id: id)
  }

  /// Settles layer `id` as committed: its change moves into the confirmed value, the visible
  /// value stays, and the version moves (a snapshot taken before is stale: the confirmed value
  /// changed). Returns the waiter whose turn it now is, and the layers as they were, to release
  /// after unlocking (they hold the settled layer and the old confirmed value).
  mutating func confirm(
    layer id: UInt64, sent: Value, version: UInt64
  ) -> (next: Waiter?, settled: Layers<Value, Waiter>) {
    guard var layers else { fatalError("TinyObservation: layer \(id) confirmed with none pending") }
    let settled = layers
    self.layers = nil
    let next = layers.confirm(id: id, sent: sent, version: version)
    self.version &+= 1
    if !layers.isEmpty { self.layers = layers }
    return (next, settled)
  }

  /// Settles layer `id` as failed: it is dropped and the visible value recomputed, with a change
  /// carrying `error`. Returns the waiter whose turn it now is, and the layers as they were, to
  /// release after unlocking.
  mutating func rollBack(
    layer id: UInt64, error: any Error, _ outcome: inout Outcome<Value>
  ) -> (next: Waiter?, settled: Layers<Value, Waiter>) {
    guard var layers else {
      fatalError("TinyObservation: layer \(id) rolled back with none pending")
    }
    let settled = layers
    self.layers = nil
    let next = layers.rollBack(id: id)
    var replaced: [Value] = []
    let visible = layers.visible(keeping: &replaced)
    if !layers.isEmpty { self.layers = layers }
    outcome.replacedUnderLayers = replaced
    _ = show(visible, error: error, &outcome.batch, &outcome.replaced)
    return (next, settled)
  }
}

/// The message that stops the program when an optimistic update starts inside a commit of the
/// same atom: it would wait for that commit to settle, which waits for it.
let nestedCommitMessage =
  "TinyObservation: Atom.update(optimistically:commit:) was called from inside a commit of the "
  + "same atom (or from a task that commit started); it would wait forever for that commit, "
  + "which waits for it — update the atom with update(_:) or set(_:), or after the commit returns"

/// The atoms whose optimistic commit is running in the current task and in the tasks it
/// started (a task-local value: child tasks and `Task {}` inherit it; detached tasks and other
/// threads do not).
enum CommitsInProgress {
  /// The atoms: usually none or one. They are held, not just identified, so that a task started
  /// inside a commit and outliving its atom never mistakes a new atom at the same address for it.
  @TaskLocal static var current: [any AnyObject & Sendable] = []
}

/// What a transition of the optimistic path leaves the atom to do after unlocking: the batch to
/// deliver, and the values it replaced, to release.
struct Outcome<Value: Sendable> {
  var batch: Batch<Value>?
  /// The visible value a change replaced (when no batch carries it as the change's `old`), or
  /// the copy a throwing body left behind.
  var replaced: Value?
  /// What optimistic layers replaced: the old confirmed value, and the values the layers went
  /// through on the way to the new visible value.
  var replacedUnderLayers: [Value]?
}
