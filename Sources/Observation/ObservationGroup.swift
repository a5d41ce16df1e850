import TinyInternals

/// Identifies one observation of an ``ObservationGroup``, to remove it with
/// ``ObservationGroup/remove(_:)``.
///
/// Identifiers are unique across every group of the process, so one group never mistakes
/// another group's identifier for one of its own.
public struct ObservationID: Hashable, Sendable {
  let rawValue: Int
}

/// Starts and stops many observations at once, delivering on the main actor: a view's bindings,
/// begun when it appears and ended when it disappears.
///
/// ```swift
/// @MainActor final class LoginViewController {
///   let observations = ObservationGroup()
///   func viewDidLoad() {
///     observations.observe(model.username) { [weak self] change in
///       self?.usernameField.text = change.new
///     }
///     observations.observe(model.canLogin) { [weak self] change in
///       self?.loginButton.isEnabled = change.new
///     }
///   }
///   func viewWillAppear() { observations.begin() }    // every initial value, now
///   func viewWillDisappear() { observations.end() }   // no handler starts after this
/// }
/// ```
///
/// - Sources: any ``Watchable``, `NotificationCenter` notifications
///   (`observe(notification:object:center:_:)`), and `@Observable` key paths
///   (`observe(_:_:_:)` with a model and a key path; macOS 14, iOS 17, tvOS 17, watchOS 10).
/// - Handlers run on the main actor, one at a time; each observation's changes arrive in the
///   order they were made. Changes made off the main queue, of watchable values, of
///   `@Observable` models and notifications posted there, are delivered on it (for what an
///   `@Observable` property delivers, see `observe(_:_:_:)`).
/// - ``begin()`` delivers every initial value (flagged ``AtomChange/isInitial``) before it
///   returns, in the order the observations were added; notifications have no initial value.
/// - After ``end()`` returns, no handler starts. `begin()` and `end()` are idempotent, and
///   calling either from inside any handler, including an initial one, is safe.
/// - An observation added while the group is active starts at once (its initial value is
///   delivered before `observe` returns); one removed stops at once.
/// - The group holds its sources and handlers until it is released; releasing it ends it. A
///   handler that captures the group's owner strongly makes a cycle: capture `[weak self]`.
@MainActor
public final class ObservationGroup {
  private var observations: [(id: ObservationID, member: GroupMember)] = []
  /// The next identifier, shared by every group (all on the main actor).
  private static var nextID = 0

  /// Whether the group is delivering: between ``begin()`` and ``end()``.
  public private(set) var isActive = false

  /// Creates an empty, inactive group.
  public nonisolated init() {}

  deinit {
    // A handler or source may hold another group, whose handlers hold another, and so on:
    // release the observations without nesting.
    let observations = self.observations
    self.observations = []
    Trampoline.release(consume observations)
  }

  /// The number of observations in the group.
  public var count: Int { observations.count }

  /// Starts every observation and delivers every initial value before returning. Does nothing
  /// when the group is active.
  ///
  /// The observations start in the order they were added. A handler that calls ``end()``
  /// stops the remaining ones from starting.
  ///
  /// ```swift
  /// observations.begin()     // each handler has run once, with change.isInitial == true
  /// ```
  public func begin() {
    guard !isActive else { return }
    isActive = true
    for (id, member) in observations where isActive {
      // A handler that ran meanwhile may have removed the member.
      if observations.contains(where: { $0.id == id }) { member.start() }
    }
  }

  /// Stops every observation: no handler starts after this returns. Does nothing when the
  /// group is not active.
  ///
  /// Safe from inside any handler; the handler that called it finishes, nothing else runs.
  ///
  /// ```swift
  /// observations.end()
  /// username.set("ada")      // no handler of the group runs
  /// ```
  public func end() {
    guard isActive else { return }
    isActive = false
    for (_, member) in observations { member.stop() }
  }

  /// Removes an observation; it stops at once. Removing an unknown or already removed
  /// observation, or one of another group, does nothing.
  ///
  /// The group releases the observation's handler after removing it, so a `deinit` that the
  /// release sets off may use the group.
  ///
  /// ```swift
  /// let id = observations.observe(username) { print($0.new) }
  /// observations.remove(id)
  /// ```
  ///
  /// - Parameter id: What `observe` returned.
  public func remove(_ id: ObservationID) {
    guard let index = observations.firstIndex(where: { $0.id == id }) else { return }
    let member = observations.remove(at: index).member
    member.stop()
  }

  /// Watches `source`; while the group is active, `handler` receives its changes on the main
  /// actor, in order, starting with the current value.
  ///
  /// ```swift
  /// observations.observe(canLogin) { [weak self] change in
  ///   self?.loginButton.isEnabled = change.new
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - source: Any watchable value, such as an ``Atom`` or a ``DerivedAtom``.
  ///   - handler: Receives the initial value (flagged ``AtomChange/isInitial``) at each
  ///     ``begin()``, then every change.
  /// - Returns: The observation's identifier, for ``remove(_:)``.
  @discardableResult
  public func observe<Source: Watchable>(
    _ source: Source,
    _ handler: @escaping @MainActor @Sendable (AtomChange<Source.Value>) -> Void
  ) -> ObservationID {
    add(WatchableMember(source, handler))
  }

  /// Adds a member and starts it when the group is active.
  func add(_ member: GroupMember) -> ObservationID {
    let id = ObservationID(rawValue: Self.nextID)
    Self.nextID += 1
    observations.append((id, member))
    if isActive { member.start() }
    return id
  }

  /// The member of observation `id`, for tests.
  func member(_ id: ObservationID) -> GroupMember? {
    observations.first { $0.id == id }?.member
  }
}

/// One observation of a group: started by `begin()`, stopped by `end()`. Each start begins a new
/// run; a subclass starts delivering in ``begin()`` and stops in ``end()``. `Sendable` (as a
/// main-actor class is), so that a group released off the main actor can hand its members on.
@MainActor
class GroupMember {
  /// The number of the run going on, or `nil` while stopped: a delivery from an earlier run,
  /// still on its way to the main queue, must not reach the handler.
  private(set) var run: Int?
  /// The runs started so far.
  private var runs = 0

  /// Starts a run, unless one is going on.
  final func start() {
    guard run == nil else { return }
    runs += 1
    run = runs
    begin()
  }

  /// Stops the run: no handler call starts after this returns.
  final func stop() {
    run = nil
    end()
  }

  /// Starts delivering; a source with a value delivers it before returning.
  func begin() {}

  /// Stops delivering: no handler call starts after this returns.
  func end() {}
}

/// A group's observation of a ``Watchable``.
final class WatchableMember<Source: Watchable>: GroupMember {
  private let source: Source
  private let handler: @MainActor @Sendable (AtomChange<Source.Value>) -> Void
  private var token: WatchToken?

  init(
    _ source: Source, _ handler: @escaping @MainActor @Sendable (AtomChange<Source.Value>) -> Void
  ) {
    self.source = source
    self.handler = handler
  }

  override func begin() {
    let run = self.run
    // Started on the main queue, the initial value is delivered before `watchOnMain` returns;
    // its handler may already have stopped this run (or stopped it and started another).
    let started = source.watchOnMain(includingInitial: true) { [weak self] change in
      guard let self, self.run == run else { return }
      self.handler(change)
    }
    // A token not kept is released here, which cancels its watch.
    if self.run == run { token = started }
  }

  override func end() {
    token?.cancel()
    token = nil
  }
}
