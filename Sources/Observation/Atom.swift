/// A thread-safe value that can be read, updated atomically and watched.
///
/// ```swift
/// let name = Atom("")
/// let token = name.watch { change in print(change.old, "→", change.new) }
/// name.update { $0 += "Ada" }      // prints " → Ada"; returns "Ada"
/// name.set("Bob")                  // prints "Ada → Bob"
/// name.value                       // "Bob"
/// ```
///
/// Every change goes to every watcher exactly once, serially, outside the lock, in the order the
/// changes took effect, on a thread that is changing the atom: the caller's own thread whenever
/// no other thread is delivering. So an update may return before its change reached the
/// watchers when another thread is delivering, and always does when made from inside a watcher
/// (that change is delivered after the current one). Every update is a change, even one that
/// leaves an equal value.
public final class Atom<Value: Sendable>: Watchable, Sendable {
  @usableFromInline let state: Locked<AtomState<Value>>

  /// Creates an atom holding `value`.
  ///
  /// - Parameter value: The initial value.
  public init(_ value: Value) {
    state = Locked(AtomState(value))
  }

  /// The current value: a snapshot, safe to read from any thread.
  ///
  /// It is get-only because `atom.value += 1` would read and write separately and could lose a
  /// concurrent update; write `atom.update { $0 += 1 }`. While optimistic updates are pending it
  /// includes them (see ``confirmedValue``).
  @inlinable
  public var value: Value {
    state.withLock { $0.value }
  }

  /// The value without pending optimistic updates: the value their commits started from, with
  /// the commits that succeeded and the plain updates made since. Equal to ``value`` when no
  /// optimistic update is pending.
  public var confirmedValue: Value {
    state.withLock { $0.confirmedValue }
  }

  /// Changes the value atomically and returns the new value.
  ///
  /// `body` runs exactly once, under the atom's lock, so no other change can interleave. Keep it
  /// short and pure: it must not touch this atom (reading ``value``, updating, or watching it
  /// from the body traps, because the lock is held), and should not touch other atoms. When it
  /// throws, nothing changes, no change is delivered, and the error is rethrown.
  ///
  /// While optimistic updates are pending, `body` changes the confirmed value; the pending
  /// changes re-apply on top, and the returned value is the visible one.
  ///
  /// ```swift
  /// let count = Atom(1)
  /// count.update { $0 += 1 }                     // 2
  /// try count.update { try validate(&$0) }       // unchanged if `validate` throws
  /// ```
  ///
  /// - Parameter body: Changes the value in place.
  /// - Returns: The value after the change, as watchers see it.
  /// - Throws: What `body` throws; then the value is unchanged.
  @inlinable
  @discardableResult
  public func update<Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Void
  ) throws(Failure) -> Value {
    let (value, batch) = try state.withLock { (state) throws(Failure) in
      try state.update { (value) throws(Failure) -> Bool in
        try body(&value)
        return true
      }
    }
    if let batch = consume batch { deliver(batch) }
    return value
  }

  /// Replaces the value.
  ///
  /// The same as `update { $0 = newValue }`: while optimistic updates are pending, it replaces
  /// the confirmed value and the pending changes re-apply on top.
  ///
  /// ```swift
  /// name.set("Ada")        // name.value == "Ada"
  /// ```
  ///
  /// - Parameter newValue: The new value.
  @inlinable
  public func set(_ newValue: Value) {
    update { $0 = newValue }
  }

  /// Watches the atom; see ``Watchable/watch(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = name.watch(includingInitial: true) { change in print(change.new) }
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watch(
    includingInitial: Bool, _ handler: @escaping @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken {
    add(Watcher(handler), includingInitial: includingInitial)
  }

  /// Watches the atom on the main queue; see ``Watchable/watchOnMain(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = name.watchOnMain(includingInitial: true) { change in label.text = change.new }
  /// ```
  ///
  /// - Parameters:
  ///   - includingInitial: Whether to deliver the current value first, flagged
  ///     ``AtomChange/isInitial``.
  ///   - handler: Receives each change on the main actor.
  /// - Returns: A token that keeps the watch running; cancel or release it to stop.
  public func watchOnMain(
    includingInitial: Bool, _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> WatchToken {
    add(Watcher(onMain: handler), includingInitial: includingInitial)
  }

  /// The number of watches running, for tests.
  var watcherCount: Int {
    state.withLock { $0.watchers.count }
  }

  private func add(_ watcher: Watcher<Value>, includingInitial: Bool) -> WatchToken {
    let onMainQueue = includingInitial && MainQueue.isCurrent
    let (batch, mainAction) = state.withLock {
      $0.add(watcher, includingInitial: includingInitial, onMainQueue: onMainQueue)
    }
    // The token finds its watcher by identity: a weak reference would move the watcher's
    // reference counts to a side table and slow every delivery down.
    let id = ObjectIdentifier(watcher)
    let token = WatchToken(flag: watcher.stopped) { [weak self] in
      self?.state.withLock { $0.remove(id) }?.dropWaiting()
    }
    if let mainAction { watcher.perform(mainAction) }
    if let batch = consume batch { deliver(batch) }
    return token
  }

  /// Delivers `batch`, then every batch other threads queued meanwhile, until none is left.
  ///
  /// Callers hand the batch over with `consume`: a copy would retain and release the watcher
  /// list once more per change, which with one cheap handler cost a fifth of a set.
  @inlinable
  func deliver(_ batch: consuming Delivery<Value>) {
    var current = batch
    while true {
      current.send()
      guard let next = state.withLock({ $0.nextBatch() }) else { return }
      current = next
    }
  }
}

extension Atom where Value: Equatable {
  /// Replaces the value with `newValue` if it equals `expected`, atomically; returns whether it
  /// did.
  ///
  /// When the value differs, nothing changes and no change is delivered. While optimistic
  /// updates are pending, the comparison and the replacement are made on the confirmed value,
  /// as for every plain update.
  ///
  /// ```swift
  /// let name = Atom("Ada")
  /// name.compareAndSet(expected: "Ada", to: "Bob")    // true; name.value == "Bob"
  /// name.compareAndSet(expected: "Ada", to: "Eve")    // false; still "Bob"
  /// ```
  ///
  /// - Parameters:
  ///   - expected: The value the atom must hold for the replacement to happen.
  ///   - newValue: The replacement.
  /// - Returns: Whether the value was replaced.
  @discardableResult
  public func compareAndSet(expected: Value, to newValue: Value) -> Bool {
    let (swapped, batch) = state.withLock { state -> (Bool, Delivery<Value>?) in
      var swapped = false
      let batch = state.update { value in
        guard value == expected else { return false }
        value = newValue
        swapped = true
        return true
      }.batch
      return (swapped, batch)
    }
    if let batch = consume batch { deliver(batch) }
    return swapped
  }
}
