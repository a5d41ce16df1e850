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
/// A read borrows the world where it is stored, for as long as the access lasts: in an
/// optimized build, `Current.date()` copies the one closure it calls, not the world, and
/// `Current.someMethod()` runs the method on the world in place (a debug build copies the
/// world). A world replaced during an access (by a method of `World` that assigns `Current`,
/// say) stays alive, and that access keeps reading it, until the access ends.
///
/// - Complexity: O(1). Inside a scope, a read is a task-local lookup and the world the scope
///   started with, read in place: no reference counted, and on Linux no lock (Apple platforms
///   below macOS 15 and iOS 18 have no atomics in the standard library, so there two flags are
///   each read under a brief lock). With no scope anywhere in the process, or after an
///   assignment inside the scope, a read also takes one uncontended lock and holds the object
///   the world is stored in (one reference counted) until the access ends.
public var Current: World {
  // Borrowed, not copied: `Current.date()` reads the one field it calls from where the world
  // is stored, and copying a whole world would count a reference to its fields.
  _read {
    let read = Scopes.withShared { $0.read() }
    yield read.slot.pointee
    withExtendedLifetime(read.pin) {}
  }
  set { Scopes.withShared { $0.assign(newValue) } }
}
