/// The working part of a ``DerivedAtom``: an atom holding the derived value, the computation,
/// and the watches on the sources. The sources' watches hold it weakly, so it lives exactly as
/// long as its derived atom.
final class Derivation<Value: Sendable>: Sendable {
  /// Holds the derived value and delivers its changes.
  let storage: Atom<Value>
  private let read: @Sendable () -> Value
  private let isSame: (@Sendable (Value, Value) -> Bool)?
  /// Serializes recomputations, so an older result never overwrites a newer one. Held while
  /// reading the sources, never while delivering.
  private let recomputing = Locked(())
  private let sourceWatches = Locked<[WatchToken]>([])

  init<each Source: Watchable>(
    _ source: repeat each Source,
    compute: @escaping @Sendable (repeat (each Source).Value) -> Value,
    isSame: (@Sendable (Value, Value) -> Bool)?
  ) {
    let read: @Sendable () -> Value = { compute(repeat (each source).value) }
    self.read = read
    self.isSame = isSame
    storage = Atom(read())
    var watches: [WatchToken] = []
    for source in repeat each source {
      watches.append(
        source.watch { [weak self] change in
          self?.recompute(error: change.error)
        })
    }
    sourceWatches.withLock { $0 = watches }
    // A source may have changed between the first read and its watch: read once more. Nobody
    // can be watching yet, so this delivers nothing.
    recompute(error: nil)
  }

  /// Recomputes the value from the sources' current values, and delivers the change, if any,
  /// marked with `error`.
  func recompute(error: (any Error)?) {
    let batch = recomputing.withLock { _ in
      let new = read()
      return storage.state.withLock { state in
        state.update(error: error) { value in
          if let isSame, isSame(value, new) { return false }
          value = new
          return true
        }.batch
      }
    }
    if let batch = consume batch { storage.deliver(batch) }
  }
}
