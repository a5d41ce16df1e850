/// The global world and the bookkeeping of `withWorld` scopes, behind one lock.
///
/// **The fast path.** `liveBoxes` counts the scope boxes that some task may still see: it goes
/// up before a box is bound to a task local and down only when the box is back in the pool
/// (nothing else refers to it) or deallocated. A task reading `Current` inside a scope bound
/// its box after the increment, in its own program order or, for a child task, before the
/// child was created; the count cannot drop while the box is bound or held by an unstructured
/// task that inherited it. So when a reader finds the count at zero under the lock, no task
/// local anywhere holds a box, the task-local lookup would find none, and the global world is
/// the answer. Only when some scope exists somewhere does a read pay for the task-local lookup.
final class Scopes: @unchecked Sendable {  // safe: every stored property is used under `lock`
  static let shared = Scopes()

  /// The innermost scope's box, in tasks and threads that run inside `withWorld`.
  @TaskLocal static var box: Box?

  private let lock = Lock()
  /// The world outside every scope.
  private var global = World.live
  /// The boxes handed out and not yet back in the pool (see the type's comment).
  private var liveBoxes = 0
  /// Boxes ready for reuse, so that entering a scope does not allocate.
  private var pool: [Box] = []
  private static let poolLimit = 32

  private init() {
    pool.reserveCapacity(Self.poolLimit)
  }

  /// The innermost scope's world, else the global one.
  var current: World {
    get {
      if let unscoped = lock.withLock({ liveBoxes == 0 ? global : nil }) {
        return unscoped  // the fast path: no scope exists anywhere
      }
      if let box = Self.box {
        return box.world
      }
      return lock.withLock { global }
    }
    set {
      let scoped = lock.withLock { liveBoxes != 0 }
      if scoped, let box = Self.box {
        box.world = newValue
      } else {
        let replaced = lock.withLock {
          let old = global
          global = newValue
          return old
        }
        _ = replaced  // released here, outside the lock: its closures' captures may deinit
      }
    }
  }

  /// Runs `operation` in a new scope whose world is `world`.
  @inline(__always)
  func run<Output, Failure: Error>(
    _ world: World, _ operation: () throws(Failure) -> Output
  ) throws(Failure) -> Output {
    var box = checkOut(world)
    // Runs once `withValue` has returned and unbound the box, also when `operation` throws.
    defer { checkIn(&box) }
    do {
      return try Self.$box.withValue(box, operation: operation)
    } catch {
      // `withValue` rethrows untyped; only `operation`'s error can arrive here.
      throw error as! Failure
    }
  }

  /// Runs `operation` in a new scope whose world is `world`, on `isolation`.
  @inline(__always)
  func run<Output, Failure: Error>(
    _ world: World,
    isolation: isolated (any Actor)?,
    _ operation: () async throws(Failure) -> Output
  ) async throws(Failure) -> Output {
    var box = checkOut(world)
    defer { checkIn(&box) }
    do {
      return try await Self.$box.withValue(box, operation: operation, isolation: isolation)
    } catch {
      throw error as! Failure
    }
  }

  /// Takes a box from the pool, or makes one, and puts `world` in it.
  private func checkOut(_ world: World) -> Box {
    let reused = lock.withLock {
      liveBoxes += 1
      return pool.popLast()
    }
    let box = reused ?? Box()
    box.world = world
    return box
  }

  /// Returns a box to the pool once its scope has ended, unless an unstructured task created
  /// in the scope still holds it: then the box stays counted until it deinitializes.
  private func checkIn(_ box: inout Box) {
    guard isKnownUniquelyReferenced(&box) else {
      box.countedUntilDeinit()
      return
    }
    let world = box.empty()
    lock.withLock {
      liveBoxes -= 1
      if pool.count < Self.poolLimit {
        pool.append(box)
      }
    }
    _ = world  // released here, outside the lock
  }

  /// Called by a box that outlived its scope, as it deinitializes.
  fileprivate func boxEnded() {
    lock.withLock { liveBoxes -= 1 }
  }
}

extension Scopes {
  /// One scope's world. Child tasks share their scope's box, so an assignment made in any of
  /// them is seen by all.
  final class Box: @unchecked Sendable {  // safe: `stored` and `counted` are used under `lock`
    private let lock = Lock()
    private var stored: World?
    private var counted = false

    var world: World {
      get { lock.withLock { stored! } }
      set {
        let replaced = lock.withLock { stored.replace(with: newValue) }
        _ = replaced  // released outside the lock
      }
    }

    /// Takes the world out, so a pooled box keeps nothing of the user's alive.
    func empty() -> World? {
      lock.withLock { stored.take() }
    }

    /// Makes the box count itself out of `liveBoxes` when it deinitializes.
    func countedUntilDeinit() {
      lock.withLock { counted = true }
    }

    deinit {
      if lock.withLock({ counted }) {
        Scopes.shared.boxEnded()
      }
    }
  }
}

extension Optional {
  /// Stores `value` and returns what was stored before.
  fileprivate mutating func replace(with value: Wrapped) -> Wrapped? {
    let old = self
    self = value
    return old
  }
}
