extension Atom {
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
  /// deterministic function of the value, without side effects. It runs under the atom's lock and
  /// must not touch the atom.
  ///
  /// Waiting for earlier commits does not end early when the task is cancelled; `commit` runs in
  /// the caller's task, so cancellation reaches whatever it awaits.
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
    let (id, isFirst, batch) = state.withLock { $0.addLayer(change) }
    if let batch = consume batch { deliver(batch) }
    if !isFirst {
      await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
        if state.withLock({ $0.park(layer: id, turn) }) {
          turn.resume()
        }
      }
    }
    let (sent, version) = state.withLock { $0.valueToCommit(layer: id) }
    do {
      try await commit(sent)
    } catch {
      let (batch, next) = state.withLock { $0.rollBack(layer: id, error: error) }
      if let batch = consume batch { deliver(batch) }
      next?.resume()
      throw error
    }
    let next = state.withLock { $0.confirm(layer: id, sent: sent, version: version) }
    next?.resume()
    return sent
  }

  /// The number of optimistic updates whose commit has not settled, for tests.
  var pendingLayerCount: Int {
    state.withLock { $0.layers?.count ?? 0 }
  }
}
