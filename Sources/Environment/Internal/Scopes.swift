/// The global world and the bookkeeping of `withWorld` scopes.
///
/// **The fast path.** `liveBoxes` counts the scope boxes that some task may still see: it goes
/// up before a box is bound to a task local and down only when the box is back in the pool
/// (nothing else refers to it) or deallocated. A task reading `Current` inside a scope bound
/// its box after the increment, in its own program order or, for a child task, before the
/// child was created; the count cannot drop while the box is bound or held by an unstructured
/// task that inherited it. So when a reader finds the count at zero, no task local anywhere
/// holds a box, the task-local lookup would find none, and the global world is the answer.
/// Only when some scope exists somewhere does a read pay for the task-local lookup.
///
/// **Reading in place.** A read of `Current` borrows the world where it is stored for as long
/// as the reading expression needs it (see ``WorldRead``): inside a scope whose world was not
/// replaced, straight from the scope's box, which stays bound for the whole read, so the read
/// counts no reference at all; elsewhere from a ``WorldCell`` that the read holds, taken under
/// a lock.
@usableFromInline
final class Scopes: Sendable {
  /// The innermost scope's box, in tasks and threads that run inside `withWorld`; `outside`
  /// elsewhere. Kept in the shared instance rather than in a static property, whose lazy
  /// initialization would be checked on every read. Not optional: the task local copies its
  /// value through the value's type, and a class reference copies with one retain where an
  /// optional one goes through the generic optional's copy (about 100 instructions per read).
  @usableFromInline let innermost: TaskLocal<Box>
  /// The value of `innermost` outside every scope; never holds a world.
  let outside: Box

  /// What the lock guards.
  @usableFromInline
  struct State: Sendable {
    /// The world outside every scope.
    @usableFromInline var global = WorldCell(World.live)
    /// Boxes ready for reuse, so that entering a scope does not allocate.
    var pool: [Box] = []
  }

  @usableFromInline let state: Locked<State>
  /// The boxes handed out and not yet back in the pool (see the type's comment).
  @usableFromInline let liveBoxes = Count()
  private static let poolLimit = 32

  /// Whether a read finds the innermost scope's box where the runtime keeps the binding (see
  /// ``taskLocalValueAddress(_:)``): checked once, as the instance is made, by binding a box and
  /// looking it up. Were the runtime ever to keep bindings differently, reads would copy the box
  /// out with `TaskLocal.get()` instead.
  @usableFromInline let readsInPlace: Bool

  private init() {
    var initial = State()
    initial.pool.reserveCapacity(Self.poolLimit)
    state = Locked(initial)
    let outside = Box()
    let innermost = TaskLocal(wrappedValue: outside)
    self.outside = outside
    self.innermost = innermost
    readsInPlace = Self.findsBindingsInPlace(innermost)
  }

  /// Whether the runtime's lookup, read in place, finds what `local` is bound to.
  private static func findsBindingsInPlace(_ local: TaskLocal<Box>) -> Bool {
    let probe = Box()
    return local.withValue(probe) {
      guard let address = taskLocalValueAddress(Unmanaged.passUnretained(local).toOpaque()) else {
        return false
      }
      return address.load(as: UnsafeRawPointer.self)
        == UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
    }
  }

  /// Where a read of `Current` finds the world: the global world's cell when no scope exists
  /// anywhere or the caller runs in none; inside a scope, the scope's world in place, or, once
  /// it has been replaced, the replacement's cell.
  ///
  /// Inside a scope the box is found where the runtime keeps the binding, which holds it for as
  /// long as the caller stays in the scope; so is the world in it, until an assignment inside
  /// the scope replaces it.
  @inlinable @inline(__always)
  func read() -> WorldRead {
    if liveBoxes.isZero {
      return globalRead()
    }
    guard readsInPlace else {
      return copyingRead()
    }
    guard let address = taskLocalValueAddress(Unmanaged.passUnretained(innermost).toOpaque())
    else { return globalRead() }
    let box = Unmanaged<Box>.fromOpaque(address.load(as: UnsafeRawPointer.self))
    return box._withUnsafeGuaranteedRef { box in
      if let slot = box.unreplacedWorldSlot {
        return WorldRead(slot: slot, pin: nil)
      }
      return box.pinnedRead()
    }
  }

  /// A read of the global world, holding its cell. Inlined into the reading code, lock and all,
  /// as `Mutex.withLock` is: as a call it cost about a tenth of a read outside every scope (144
  /// instructions against 122 for `Current.date()`, measured here with callgrind).
  @inlinable
  func globalRead() -> WorldRead {
    WorldRead(state.withLock { $0.global })
  }

  /// ``read()`` where bindings cannot be read in place: the box copied out with
  /// `TaskLocal.get()`.
  @usableFromInline
  func copyingRead() -> WorldRead {
    innermostBox?.pinnedRead() ?? globalRead()
  }

  /// The innermost scope's box, if the caller runs in a scope. With no scope anywhere (the
  /// fast path, see the type's comment), `nil` without the task-local lookup.
  private var innermostBox: Box? {
    @inline(__always) get {
      if liveBoxes.isZero { return nil }
      let box = innermost.get()
      return box === outside ? nil : box
    }
  }

  /// Makes `world` the innermost scope's world, else the global one.
  func assign(_ world: World) {
    if let box = innermostBox {
      box.world = world
    } else {
      let cell = WorldCell(world)
      let replaced = state.withLock { state in
        let old = state.global
        state.global = cell
        return old
      }
      _ = replaced  // released here, outside the lock: its closures' captures may deinit
    }
  }

  /// The world the modifying `withWorld` starts from: the innermost scope's, else the global
  /// one unless that is a live world, which stops the program.
  func worldToModify() -> World {
    if let box = innermostBox {
      return box.world
    }
    let global = state.withLock { $0.global }.value
    if global.fields.value.keyDefaults == .live {
      fatalError(Self.liveModifyMessage)
    }
    return global
  }

  static let liveModifyMessage = """
    withWorld(_:operation:): the form that changes the current world was called outside every \
    withWorld scope while the global world is live, so it would start from the live world, with \
    its real services and storage. Name the world to start from: withWorld(.mock) { … } and \
    assign fields inside, or withWorld(.live) { … } around it to mean the live world.
    """

  /// Runs `operation` in a new scope whose world is `world`.
  @inline(__always)
  func run<Output, Failure: Error>(
    _ world: World, _ operation: () throws(Failure) -> Output
  ) throws(Failure) -> Output {
    var box = checkOut(world)
    // Runs once `withValue` has returned and unbound the box, also when `operation` throws.
    defer { checkIn(&box) }
    do {
      return try innermost.withValue(box, operation: operation)
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
      return try await innermost.withValue(box, operation: operation, isolation: isolation)
    } catch {
      throw error as! Failure
    }
  }

  /// Takes a box from the pool, or makes one, and puts `world` in it.
  private func checkOut(_ world: World) -> Box {
    liveBoxes.increment()
    let reused = state.withLock { $0.pool.popLast() }
    let box = reused ?? Box()
    box.start(with: world)
    return box
  }

  /// Returns a box to the pool once its scope has ended, unless an unstructured task created
  /// in the scope still holds it: then the box stays counted until it deinitializes.
  private func checkIn(_ box: inout Box) {
    guard isKnownUniquelyReferenced(&box) else {
      box.countedUntilDeinit()
      return
    }
    let worlds = box.empty()
    let pooled = box
    state.withLock { state in
      if state.pool.count < Self.poolLimit {
        state.pool.append(pooled)
      }
    }
    liveBoxes.decrement()
    _ = worlds  // released here, outside the lock
  }

  /// Called by a box that outlived its scope, as it deinitializes.
  fileprivate func boxEnded() {
    liveBoxes.decrement()
  }
}

extension Scopes {
  /// One scope's world. Child tasks share their scope's box, so an assignment made in any of
  /// them is seen by all.
  ///
  /// The world the scope started with is read in place without a lock: it is set before the
  /// box is bound to a task local and taken out after the scope has ended and nothing else
  /// refers to the box. An assignment inside the scope stores a replacement behind the box's
  /// lock and raises a flag; reads look behind the lock only once the flag is up. So the world
  /// a scope starts with stays where it is until the scope ends, and each replacement until
  /// the next assignment or the end of the scope (and, after that, for as long as a read that
  /// holds its cell lasts).
  @usableFromInline
  final class Box: Sendable {
    /// Where the world the scope started with lives, allocated once with the box.
    ///
    /// nonisolated(unsafe): the world in it is written only while no task can reach the box
    /// (checked out of the pool and not yet bound, or back from its scope and uniquely
    /// referenced); read only while the box is bound, after that write.
    @usableFromInline nonisolated(unsafe) let initialSlot = UnsafeMutablePointer<World>
      .allocate(capacity: 1)
    /// Whether `initialSlot` holds a world; written and read as `initialSlot`'s world is.
    nonisolated(unsafe) private var holdsInitial = false
    private let state = Locked<(replacement: WorldCell?, counted: Bool)>((nil, false))
    /// Up once the scope's world has been replaced.
    @usableFromInline let replaced = Flag()

    /// The world the scope started with, in place, unless it has been replaced.
    @inlinable
    var unreplacedWorldSlot: UnsafeMutablePointer<World>? {
      replaced.isRaised ? nil : initialSlot
    }

    /// A read of the scope's world that holds what the world is stored in: the replacement's
    /// cell, or the box itself while the world was never replaced.
    @usableFromInline
    func pinnedRead() -> WorldRead {
      if let cell = replacement {
        return WorldRead(cell)
      }
      return WorldRead(slot: initialSlot, pin: self)
    }

    /// The replacement of the scope's world, if there is one.
    var replacement: WorldCell? {
      guard replaced.isRaised else { return nil }
      return state.withLock { $0.replacement }
    }

    var world: World {
      get { replacement?.value ?? initialSlot.pointee }
      set {
        let cell = WorldCell(newValue)
        let old = state.withLock { state in
          defer { replaced.raise() }
          return state.replacement.replace(with: cell)
        }
        _ = old  // released outside the lock
      }
    }

    /// Puts the scope's first world in the box (the box is not bound yet).
    func start(with world: World) {
      initialSlot.initialize(to: world)
      holdsInitial = true
    }

    /// Takes the worlds out, so a pooled box keeps nothing of the user's alive.
    ///
    /// Called only while the caller holds the one reference to the box, so no assignment can
    /// race with it; a box whose world was never replaced skips the lock.
    func empty() -> (initial: World?, replacement: WorldCell?) {
      let initial = holdsInitial ? initialSlot.move() : nil
      holdsInitial = false
      guard replaced.isRaised else { return (initial, nil) }
      let replacement = state.withLock { state in
        replaced.lower()
        return state.replacement.take()
      }
      return (initial, replacement)
    }

    /// Makes the box count itself out of `liveBoxes` when it deinitializes.
    func countedUntilDeinit() {
      state.withLock { $0.counted = true }
    }

    deinit {
      if state.withLock({ $0.counted }) {
        Scopes.shared.boxEnded()
      }
      if holdsInitial {
        _ = initialSlot.move()
      }
      initialSlot.deallocate()
    }
  }

  /// A world in an object of its own, read in place by whoever holds the object: the global
  /// world, and a scope's world after an assignment inside the scope. Immutable: assigning
  /// makes a new cell.
  @usableFromInline
  typealias WorldCell = ImmutableBox<World>
}

/// Where a read of ``Current`` borrows the world from, for as long as the reading expression
/// needs it, and the object that keeps the world there until then: `nil` inside a scope whose
/// world was not replaced, where the scope's binding keeps its box, and the box its world.
@usableFromInline
struct WorldRead {
  /// The world, in place.
  @usableFromInline let slot: UnsafeMutablePointer<World>
  /// What the read holds for as long as it lasts.
  @usableFromInline let pin: AnyObject?

  @inlinable
  init(slot: UnsafeMutablePointer<World>, pin: AnyObject?) {
    self.slot = slot
    self.pin = pin
  }

  /// A read of the world in `cell`, holding it.
  @inlinable
  init(_ cell: Scopes.WorldCell) {
    self.init(slot: cell.slot, pin: cell.storage)
  }
}

/// The address of the value bound to the task local whose key is `key`, in the current task
/// (or, outside every task, on the current thread), or `nil` when none is bound.
///
/// This is an exported entry point of the Concurrency runtime, on every platform since Swift
/// 5.5: the one `TaskLocal.get()` calls to find a binding before it copies the value out. A
/// `TaskLocal`'s key is the address of the `TaskLocal` object, and the value sits in the binding
/// itself. Copying a class reference out costs a retain and a release; reading it in place costs
/// neither. `Scopes` checks once that the lookup finds what it bound (``Scopes/readsInPlace``)
/// and otherwise copies with `get()`; the tests check that both agree in every context a read
/// can run in.
@usableFromInline @_silgen_name("swift_task_localValueGet")
func taskLocalValueAddress(_ key: UnsafeRawPointer) -> UnsafeMutableRawPointer?

extension Optional {
  /// Stores `value` and returns what was stored before.
  fileprivate mutating func replace(with value: Wrapped) -> Wrapped? {
    let old = self
    self = value
    return old
  }
}

#if canImport(Darwin)
  extension Scopes {
    /// The one instance. (Apple platforms check a lazily made global's initialization inline,
    /// with one load.)
    @usableFromInline static let shared = Scopes()

    /// Calls `body` with the one instance.
    @inlinable @inline(__always)
    static func withShared<Result, Failure: Error>(
      _ body: (Scopes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      try body(shared)
    }
  }
#else
  import Synchronization

  /// The address of the one ``Scopes``, 0 until its first use. A global `Atomic` is initialized
  /// statically, so reading it is one load, where reading a lazily made global calls into the
  /// runtime to check its initialization every time (on Linux, about 10 of the 170 instructions
  /// that `Current.date()` took).
  @usableFromInline let sharedAddress = Atomic<UInt>(0)

  extension Scopes {
    /// The one instance.
    static var shared: Scopes {
      withShared { $0 }
    }

    /// Calls `body` with the one instance, borrowed: the global holds it for the life of the
    /// process, so no reference is counted.
    @inlinable @inline(__always)
    static func withShared<Result, Failure: Error>(
      _ body: (Scopes) throws(Failure) -> Result
    ) throws(Failure) -> Result {
      let address = sharedAddress.load(ordering: .acquiring)
      guard let pointer = UnsafeRawPointer(bitPattern: address) else { return try body(made) }
      do {
        return try Unmanaged<Scopes>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
      } catch {
        // `_withUnsafeGuaranteedRef` rethrows untyped; only `body`'s error can arrive here.
        throw error as! Failure
      }
    }

    /// The instance, made at first use; its address is published for the reads that follow.
    @usableFromInline static var made: Scopes {
      let scopes = instance
      sharedAddress.store(
        UInt(bitPattern: Unmanaged.passUnretained(scopes).toOpaque()), ordering: .releasing)
      return scopes
    }

    private static let instance = Scopes()
  }
#endif
