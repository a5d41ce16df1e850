import Observation
import TinyInternals

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
/// watchers when another thread is delivering. Deliveries on one thread never nest: an update
/// made from inside a watcher, of this atom or any other, returns first, and its change is
/// delivered after the current delivery. Every update is a change, even one that leaves an
/// equal value.
///
/// No lock is held while a watcher runs or while a value or closure the atom stored is released,
/// so a `deinit` may use the atom. Only the body of ``update(_:)`` and the local change of
/// ``update(optimistically:commit:)`` run under the atom's lock, by design. A chain of atoms
/// held through their values or watchers (a value holding the next atom, whose value holds the
/// next) is released one atom after another, not nested, so a chain of any length is released
/// in constant stack depth; a change that a `deinit` set off by that release makes is delivered
/// once the `deinit` returns, as from inside a watcher.
///
/// An atom is `Observable` (macOS 14, iOS 17, tvOS 17, watchOS 10): a SwiftUI view that reads
/// ``value`` in its `body` updates by itself when the atom changes, from any thread, and so does
/// a view that reads it through an `@Observable` model holding the atom.
public final class Atom<Value: Sendable>: Watchable, Sendable {
  @usableFromInline let state: Locked<AtomState<Value>>
  /// Observation's registrar, and the key path of the value (see ``AtomObservation``).
  @usableFromInline let observation: AtomObservation<Value>
  /// Whose turn it is to deliver (see ``DeliveryTurn``).
  @usableFromInline let turn = DeliveryTurn()

  /// Creates an atom holding `value`.
  ///
  /// - Parameter value: The initial value.
  public init(_ value: Value) {
    observation = AtomObservation()
    state = Locked(AtomState(value, tracked: observation.tracked, turn: turn))
  }

  /// The current value: a snapshot, safe to read from any thread.
  ///
  /// It is get-only because `atom.value += 1` would read and write separately and could lose a
  /// concurrent update; write `atom.update { $0 += 1 }`. While optimistic updates are pending it
  /// includes them (see ``confirmedValue``).
  ///
  /// A read inside `withObservationTracking` (and so inside a SwiftUI `body`) is tracked: the
  /// next change of the atom, from any thread, calls its `onChange` (see
  /// <doc:Observation#SwiftUI-and-Apples-Observation>).
  @inlinable  // the read goals need code specialized for `Value`
  public var value: Value {
    observation.access(self)
    return state.withLock { $0.value }
  }

  /// Changes the value atomically and returns the new value.
  ///
  /// `body` runs exactly once, under the atom's lock, so no other change can interleave: it is
  /// the one closure of an atom that is meant to run under its lock, like the body of
  /// `Mutex.withLock`. Keep it short and pure: it must not touch this atom (reading ``value``,
  /// updating, or watching it from the body stops the program, because the lock is held), and
  /// should not touch other atoms (two bodies on two threads that each touch the other's atom
  /// wait for each other's lock for ever). When it throws, nothing changes, no change is
  /// delivered, and the error is rethrown.
  ///
  /// `body` changes a copy of the value, and the value it replaces is released after the lock
  /// is released (or, with watchers, after they received it as ``AtomChange/old``), so a
  /// `deinit` of the old value may use the atom.
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
  /// - Complexity: O(1) plus `body`, plus a copy of the value when the body changes a
  ///   collection in place; delivering to *w* watchers is O(*w*).
  @inlinable  // the update and set goals need code specialized for `Value`
  @discardableResult
  public func update<Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Void
  ) throws(Failure) -> Value {
    // The batch to deliver, and what the update replaced (or a throwing body left behind), out
    // of the lock: delivered, and released, after unlocking.
    var batch: Batch<Value>?
    var replaced: Value?
    let value = try state.withLock { (state) throws(Failure) in
      try state.update(body, &batch, &replaced)
    }
    if let batch = consume batch { deliver(batch) }
    guard let value else { return try update(confirming: body, error: nil) }
    return value
  }

  /// Replaces the value.
  ///
  /// The same as `update { $0 = newValue }`: while optimistic updates are pending, it replaces
  /// the confirmed value and the pending changes re-apply on top. The old value is released
  /// after the atom's lock is, so its `deinit` may use the atom.
  ///
  /// ```swift
  /// name.set("Ada")        // name.value == "Ada"
  /// ```
  ///
  /// - Parameter newValue: The new value.
  @inlinable public func set(_ newValue: Value) {
    var batch: Batch<Value>?
    var replaced: Value?
    let isShown = state.withLock { $0.set(newValue, &batch, &replaced) }
    if let batch = consume batch { deliver(batch) }
    if !isShown { _ = update(confirming: { $0 = newValue }, error: nil) }
  }

  /// Delivers `batch`, then every batch other threads queued meanwhile, until none is left.
  ///
  /// Deliveries on one thread never nest (``Trampoline``): a delivery started from inside
  /// another one (a watcher that updates another atom, or a derived atom recomputing inside its
  /// source's delivery) waits, and runs once the current one returns. So a chain of derived
  /// atoms of any length delivers in constant stack depth.
  @inlinable func deliver(_ batch: Batch<Value>) {
    guard let entry = Trampoline.enter() else {
      // Inside another delivery on this thread: this thread delivers it (it holds the atom's
      // turn) once the current delivery returns.
      return Trampoline.enqueue {
        self.send(batch)
        self.deliverWaiting()
      }
    }
    send(batch)
    deliverWaiting()
    Trampoline.leave(entry)
  }

  /// Delivers the batches that wait, and those queued meanwhile, until none is left; then this
  /// thread's turn is over.
  @inlinable func deliverWaiting() {
    while !turn.endUnlessWaiting() {
      let next = state.withLock { $0.takeWaiting() }
      for index in next.indices { send(next[index]) }
    }
  }

  /// Hands a change to every watch it goes to, in order, then reports it to Observation, so that
  /// an `onChange` handler that reads a derived atom sees it recomputed (a derived atom is a
  /// watcher of its sources).
  @inlinable func send(_ batch: Batch<Value>) {
    for index in batch.recipients.indices where !batch.recipients[index].flag.isRaised {
      batch.recipients[index].receive(batch.change)
    }
    if batch.isReported { observation.reportChange(of: self) }
  }

  deinit {
    // The watchers hold user closures, and the value is user data, that may hold other atoms,
    // whose watchers and values hold others, and so on: release them one after another, not
    // nested. Releasing the registrar may call an `onChange` handler still registered with it
    // (Observation does that), outside the lock.
    Trampoline.release((state.withLock { $0.takeAll() }, observation))
  }
}
