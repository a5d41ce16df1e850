import TinyInternals

/// A world that ``Current`` can be, behind a lock: the global world, or a `withWorld` scope's.
///
/// `withWorld` makes a scope and binds it to ``innermost``, a task local, for as long as its
/// operation runs. Child tasks (`async let`, task groups) and unstructured tasks (`Task { }`)
/// created inside inherit the binding, so they share the scope: an assignment in one is seen by
/// all. An unstructured task holds the scope, and with it the world, for as long as it runs,
/// also after the scope has ended. Where no scope is bound, ``innermost`` is ``global``.
///
/// No user code runs under the lock: a world is copied out of it, or swapped with another, and
/// a world that was replaced is released after the unlock (a `deinit` of what its closures
/// capture may read or assign ``Current``).
final class Scope: Sendable {
  /// The world outside every scope, ``World/live`` until it is assigned.
  static let global = Scope(World.live)

  /// The innermost scope of the calling task, or, outside every task, of the calling thread;
  /// ``global`` outside every scope.
  @TaskLocal static var innermost = global

  /// The world; an assignment to ``Current`` where this scope is the innermost replaces it.
  let world: Locked<World>

  init(_ world: World) {
    self.world = Locked(world)
  }
}
