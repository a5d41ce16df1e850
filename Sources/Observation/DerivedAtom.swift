/// A read-only value computed from other watchable values, recomputed whenever one of them
/// changes, with watchers of its own.
///
/// ```swift
/// let username = Atom(""), password = Atom("")
/// let canLogin = DerivedAtom(username, password) { user, secret in
///   !user.isEmpty && !secret.isEmpty
/// }
/// let token = canLogin.watch { change in print("can log in:", change.new) }
/// username.set("ada")          // nothing: still false, and Bool is Equatable
/// password.set("secret")       // prints "can log in: true"
/// ```
///
/// - The value is computed when the derived atom is created and again after every change of any
///   source, from the sources' current values (not from the change that triggered it).
/// - Recomputations are not serialized: `compute` may run on several threads at once. Each
///   recomputation takes a ticket, in order, before it reads the sources, and its result is shown
///   only if no recomputation that took a later ticket was shown already (an older result is
///   dropped). So the value never goes back to an older result, and the last recomputation,
///   which read the sources after their last change, is always shown.
/// - When the value is `Equatable`, a recomputation that gives an equal value delivers nothing.
///   Otherwise every recomputation that is shown is a change. `==` runs outside every lock, on
///   the shown value, and again if another result was shown meanwhile.
/// - A change made by a recomputation that a source's failed optimistic commit started carries
///   that error.
/// - The derived atom holds its sources; they hold it only weakly, so releasing it stops it. A
///   chain of derived atoms of any length is created, delivered and released in constant stack
///   depth, and so is a chain held through their values (a value holding the next derived atom).
/// - `compute` runs outside every lock, on the thread that delivers the source's change (at
///   creation, on the creating thread). It may read any atom, including this one. It should be
///   cheap and should not update its sources: such an update starts another recomputation,
///   after the current delivery, like a watcher that updates what it watches.
public final class DerivedAtom<Value: Sendable>: Watchable, Sendable {
  @usableFromInline let derivation: Derivation<Value>
  /// The watches on the sources, which hold the derivation; released, and so stopped, when the
  /// derived atom goes.
  @usableFromInline let sourceWatches: [WatchToken]

  /// Creates a value derived from `source` by `compute`; every change is delivered.
  ///
  /// ```swift
  /// let summary = DerivedAtom(items, filter) { items, filter in items.filter(filter.matches) }
  /// ```
  ///
  /// With no source at all the value never changes.
  ///
  /// - Parameters:
  ///   - source: The values to derive from, any number of them.
  ///   - compute: Makes the value from the sources' values, in the order they were given.
  public convenience init<each Source: Watchable>(
    _ source: repeat each Source,
    compute: @escaping @Sendable (repeat (each Source).Value) -> Value
  ) {
    self.init(source: repeat each source, compute: compute, isSame: nil)
  }

  /// Creates a value derived from one source by `compute`; every change is delivered.
  ///
  /// ```swift
  /// let doubled = DerivedAtom(count) { $0 * 2 }
  /// ```
  ///
  /// - Parameters:
  ///   - source: The value to derive from.
  ///   - compute: Makes the value from the source's value.
  @inlinable  // one source, known to the caller: the derived goal needs its reads specialized
  public convenience init<Source: Watchable>(
    _ source: Source, compute: @escaping @Sendable (Source.Value) -> Value
  ) {
    self.init(source, compute: compute, isSame: nil)
  }

  /// A value derived from any number of sources, compared with `isSame` when it is given.
  init<each Source: Watchable>(
    source: repeat each Source,
    compute: @escaping @Sendable (repeat (each Source).Value) -> Value,
    isSame: (@Sendable (Value, Value) -> Bool)?
  ) {
    let readers = (repeat Derivation<Value>.reader(of: each source))
    let derivation = Derivation(read: { compute(repeat (each readers)()) }, isSame: isSame)
    var watches: [WatchToken] = []
    repeat watches.append((each source).watch { derivation.recompute(error: $0.error) })
    self.derivation = derivation
    sourceWatches = watches
    // A source may have changed between the first read and its watch: read once more. Nobody
    // can be watching yet, so this delivers nothing.
    derivation.recompute(error: nil)
  }

  /// A value derived from one source, compared with `isSame` when it is given.
  @inlinable init<Source: Watchable>(
    _ source: Source, compute: @escaping @Sendable (Source.Value) -> Value,
    isSame: (@Sendable (Value, Value) -> Bool)?
  ) {
    let read = Derivation<Value>.reader(of: source)
    let derivation = Derivation(read: { compute(read()) }, isSame: isSame)
    sourceWatches = [source.watch { derivation.recompute(error: $0.error) }]
    self.derivation = derivation
    derivation.recompute(error: nil)  // as above
  }

  /// The current value: a snapshot, safe to read from any thread.
  ///
  /// A read inside `withObservationTracking` (and so inside a SwiftUI `body`) is tracked: the
  /// next recomputation that changes the value calls its `onChange` (see
  /// <doc:Observation#SwiftUI-and-Apples-Observation>).
  public var value: Value {
    derivation.storage.value
  }

  /// Watches the derived value; see ``Watchable/watch(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = canLogin.watch(includingInitial: true) { change in print(change.new) }
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
    derivation.storage.watch(includingInitial: includingInitial, handler)
  }

  /// Watches the derived value on the main queue; see
  /// ``Watchable/watchOnMain(includingInitial:_:)``.
  ///
  /// ```swift
  /// let token = canLogin.watchOnMain(includingInitial: true) { button.isEnabled = $0.new }
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
    derivation.storage.watchOnMain(includingInitial: includingInitial, handler)
  }
}

extension DerivedAtom where Value: Equatable {
  /// Creates a value derived from `source` by `compute`; a recomputation that gives an equal
  /// value delivers nothing.
  ///
  /// ```swift
  /// let canLogin = DerivedAtom(username, password) { !$0.isEmpty && !$1.isEmpty }
  /// ```
  ///
  /// With no source at all the value never changes.
  ///
  /// - Parameters:
  ///   - source: The values to derive from, any number of them.
  ///   - compute: Makes the value from the sources' values, in the order they were given.
  public convenience init<each Source: Watchable>(
    _ source: repeat each Source,
    compute: @escaping @Sendable (repeat (each Source).Value) -> Value
  ) {
    self.init(source: repeat each source, compute: compute, isSame: { $0 == $1 })
  }

  /// Creates a value derived from one source by `compute`; a recomputation that gives an equal
  /// value delivers nothing.
  ///
  /// ```swift
  /// let isEmpty = DerivedAtom(name) { $0.isEmpty }
  /// ```
  ///
  /// - Parameters:
  ///   - source: The value to derive from.
  ///   - compute: Makes the value from the source's value.
  @inlinable  // one source, known to the caller: the derived goal needs its reads specialized
  public convenience init<Source: Watchable>(
    _ source: Source, compute: @escaping @Sendable (Source.Value) -> Value
  ) {
    self.init(source, compute: compute, isSame: { $0 == $1 })
  }
}
