import TinyInternals

/// The world the code that reads it lives in: the innermost `withWorld(_:operation:)` scope's
/// world, else the global world.
///
/// Read it anywhere instead of calling `Date()`, `Locale.current`, `UUID()` or a singleton:
///
/// ```swift
/// let now = Current.date()
/// let text = Current.dateFormatter().string(from: now)   // "September 13, 2018 at 5:00 PM"
/// let user = try await Current.api.fetchCurrentUser()    // an app-defined field
/// ```
///
/// Assigning to `Current`, or to one of its fields, changes the innermost scope's world —
/// seen by that scope and its child tasks, and gone when the scope ends — or, outside every
/// scope, the global world, for the whole process. The global world starts as ``World/live``.
///
/// ```swift
/// withWorld(.mock) {
///   Current.date = { .distantPast }   // this scope only
/// }
/// Current = .mock                     // outside any scope: the global world
/// ```
///
/// Scopes follow tasks: child tasks (`async let`, task groups) and unstructured `Task { }`s
/// created inside a scope see it. Work sent to a dispatch queue, a thread or a detached task
/// reads the global world; carry the world along yourself:
///
/// ```swift
/// let world = Current
/// queue.async { withWorld(world) { render() } }
/// ```
///
/// An assignment is a read, a change and a write: two threads assigning to the same world at
/// once may lose one of the changes. Set a world up before starting concurrent work, or give
/// each piece of work its own scope.
///
/// Outside tests, the world is meant to be set once, at launch; `.ci/check-current-assignments`
/// flags assignments to `Current` outside tests (see the guide's mutation policy).
///
/// A read copies the world out (one reference counted: a world's fields are shared), so an
/// assignment made while the copy is in use does not change it.
///
/// - Complexity: O(1): a task-local lookup, then one brief lock, the innermost scope's or the
///   global world's. An assignment takes the same lock, and allocates the world's changed
///   fields (see ``World``).
public var Current: World {
  get { Scope.innermost.world.withLock { $0 } }
  set {
    var replaced = newValue
    Scope.innermost.world.withLock { swap(&$0, &replaced) }
    // `replaced` now holds the world that was there, released here, after the unlock: a
    // `deinit` of something its closures capture may read or assign `Current`.
  }
}
