import Dispatch
import Observation
import TinyInternals

extension ObservationGroup {
  /// Observes a property of an `@Observable` model; while the group is active, `handler`
  /// receives its changes on the main actor, starting with the current value.
  ///
  /// Observation reports a change on the thread that makes it; the group then hops to the
  /// main queue, reads the property there, delivers what it read, and tracks the property
  /// again. Changes therefore always arrive asynchronously, on the main queue, and several
  /// changes made before the hop arrive as one, with the value read (`old` is the value last
  /// delivered). A change made on any thread is delivered; nothing traps.
  ///
  /// What the hop reads is the final value whenever the change was stored before the hop ran:
  /// always for a change made on the main queue, and for one that reports after it is stored,
  /// from any thread: an ``Atom`` or ``DerivedAtom`` read through the key path
  /// (`\.count.value`), or a setter that stores before it calls `withMutation`. A plain
  /// `@Observable` stored property reports *before* it stores (the toolchain gives no public
  /// hook after the store); written on another thread, the hop can read it before the store,
  /// and then delivers the value it read: the stored value arrives with the next change of a
  /// tracked property, or at the next ``begin()``. To get every final value from any thread,
  /// hold the value in an atom. Changes while the group is not active are not reported.
  ///
  /// `withObservationTracking` cannot be disarmed, so the observation keeps one registration in
  /// the model at a time: ``end()`` leaves it armed, and the next ``begin()`` re-uses it. After
  /// ``remove(_:)`` or the group's release, that registration stays in the model until an
  /// observed property next changes; then it fires once and does nothing.
  ///
  /// ```swift
  /// @Observable final class Session { var status = "signed out" }
  /// observations.observe(session, \.status) { [weak self] change in
  ///   self?.statusLabel.text = change.new
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - model: The `@Observable` model; the group holds it.
  ///   - keyPath: The property to observe; any property the key path reads is tracked.
  ///   - handler: Receives the initial value (flagged ``AtomChange/isInitial``) at each
  ///     ``begin()``, then the changes.
  /// - Returns: The observation's identifier, for ``remove(_:)``.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @discardableResult
  public func observe<Model: Observable & AnyObject, Value>(
    _ model: Model,
    _ keyPath: KeyPath<Model, Value>,
    _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> ObservationID {
    add(ObservableMember(model, keyPath, handler))
  }
}

/// A group's observation of a property of an `@Observable` model.
///
/// `withObservationTracking` offers no way to disarm a registration: it stays in the model
/// until a tracked property is next written. So the member keeps at most one armed at any time,
/// and re-uses it across `end()` and `begin()` (a registration that has not fired means nothing
/// it tracks was written, so the current value needs no new one). Only the first fire of the
/// armed registration counts: the toolchain can fire a registration again, and one that fires
/// while the member is stopped, or after it was removed, does nothing. A fire queues at most one
/// main-queue hop; later fires fold into the one queued.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class ObservableMember<Model: Observable & AnyObject, Value>: GroupMember {
  /// Reads the property from the model, which it holds.
  private let read: () -> Value
  private let handler: @MainActor @Sendable (AtomChange<Value>) -> Void
  /// The value last delivered, while running.
  private var last: Value?
  /// The tracking, shared with the registrations.
  let tracking = SharedTracking()

  init(
    _ model: Model, _ keyPath: KeyPath<Model, Value>,
    _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) {
    read = { model[keyPath: keyPath] }
    self.handler = handler
  }

  override func begin() {
    // An armed registration has not fired, so nothing it tracks was written: it tracks the
    // same properties the key path reads now.
    let value = tracking.state.withLock { $0.start() } ? read() : track()
    last = value
    handler(.initial(value))
  }

  override func end() {
    tracking.state.withLock { $0.isRunning = false }
    last = nil
  }

  /// Arms a registration for the next change, then reads the property. The read after the
  /// registration is in place: a change between the tracked read and the registration's
  /// installation would otherwise be missed, and its value never delivered.
  private func track() -> Value {
    let tracking = self.tracking
    let registration = tracking.state.withLock { $0.arm() }
    _ = withObservationTracking(read) { [weak self] in
      // Called on the writing thread: before a plain `@Observable` property stores the new
      // value, after an atom did.
      guard tracking.state.withLock({ $0.fired(registration) }) else { return }
      DispatchQueue.main.async {
        MainActor.assumeIsolated { self?.hopped() }
      }
    }
    return read()
  }

  /// The hop a fire queued: delivers the value read now and arms the next registration, unless
  /// the member is stopped (nothing was delivered since) or a registration is armed already
  /// (then `begin()` read the value after the fire).
  private func hopped() {
    guard tracking.state.withLock({ $0.hopped() }), let old = last else { return }
    let new = track()
    last = new
    handler(AtomChange(old: old, new: new))
  }
}

/// An ``ObservableMember``'s ``ObservableTracking`` under a lock, shared by the member on the
/// main actor and its registrations, which fire on writing threads.
final class SharedTracking: Sendable {
  let state = Locked(ObservableTracking())
}

/// The pure state machine behind an ``ObservableMember``'s registrations: which one is armed,
/// whether the member runs, and whether a main-queue hop is queued.
struct ObservableTracking {
  /// The number of the registration armed and not fired yet, or `nil`.
  private(set) var armed: Int?
  /// The registrations armed so far (the next one's number).
  private(set) var registrations = 0
  /// Whether the member is running.
  var isRunning = false
  /// Whether a main-queue hop is queued and has not run yet.
  private(set) var isHopQueued = false
  /// The main-queue hops queued so far, for tests.
  private(set) var hops = 0

  /// Records that the member started; returns whether a registration is armed.
  mutating func start() -> Bool {
    isRunning = true
    return armed != nil
  }

  /// Records that a registration is being armed, and returns its number.
  mutating func arm() -> Int {
    armed = registrations
    registrations += 1
    return registrations - 1
  }

  /// Registration `number` fired, on the writing thread; returns whether the caller is to queue
  /// a main-queue hop. Not when it is not the armed one (it fired before), when the member is
  /// stopped, or when a hop is queued already (it reads the value after this change).
  mutating func fired(_ number: Int) -> Bool {
    guard armed == number else { return false }
    armed = nil
    guard isRunning, !isHopQueued else { return false }
    isHopQueued = true
    hops += 1
    return true
  }

  /// The queued hop runs; returns whether it is to read and arm again: not when a
  /// registration is armed already.
  mutating func hopped() -> Bool {
    isHopQueued = false
    return armed == nil
  }
}
