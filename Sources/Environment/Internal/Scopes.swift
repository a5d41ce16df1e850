import TinyInternals

/// The global world and the bookkeeping of `withWorld` scopes.
///
/// **Entering a scope.** A scope takes a box from one of ``ScopeClaims/slotCount`` slots,
/// claimed with one atomic operation on `claims` and freed with another once the scope has
/// ended (no lock); when every slot is in use, it makes a box and counts it in the same word.
/// The box borrows the world it starts with from the caller of `withWorld`, which holds it for
/// the whole scope; only if a task created in the scope still holds the box when the scope
/// ends does the box keep a reference to the world of its own.
///
/// **The fast path.** `claims` is zero exactly when no scope box is in use: a slot is claimed
/// before its box is bound to a task local and freed only when the box is back in it (nothing
/// else refers to it); a box outside the slots is counted until it is back or deallocated. A
/// task reading `Current` inside a scope bound its box after the claim, in its own program
/// order or, for a child task, before the child was created; the claim cannot end while the box
/// is bound or held by an unstructured task that inherited it. So when a reader finds `claims`
/// at zero, no task local anywhere holds a box, the task-local lookup would find none, and the
/// global world is the answer. Only when some scope exists somewhere does a read pay for the
/// task-local lookup.
///
/// **Reading in place.** A read of `Current` borrows the world where it is stored for as long
/// as the reading expression needs it (see ``WorldRead``): inside a scope whose world was not
/// replaced, straight from the scope's box, which stays bound for the whole read, so the read
/// counts no reference at all; elsewhere from a ``WorldCell`` that the read holds, taken under
/// a lock.
final class Scopes: Sendable {
  /// The innermost scope's box, in tasks and threads that run inside `withWorld`; `outside`
  /// elsewhere. Kept in the shared instance rather than in a static property, whose lazy
  /// initialization would be checked on every read. Not optional: the task local copies its
  /// value through the value's type, and a class reference copies with one retain where an
  /// optional one goes through the generic optional's copy (about 100 instructions per read).
  let innermost: TaskLocal<Box>
  /// The value of `innermost` outside every scope; never holds a world.
  let outside: Box

  /// What the lock guards.
  struct State: Sendable {
    /// The world outside every scope.
    var global = WorldCell(World.live, inline: true)
  }

  let state: Locked<State>
  /// Which slots' boxes are in use, and how many boxes outside the slots (see the type's
  /// comment).
  let claims = ScopeClaims()
  /// The pooled boxes, made at a slot's first claim, so that entering a scope does not
  /// allocate.
  ///
  /// nonisolated(unsafe): slot `i` is read and written only by the thread that holds its claim
  /// (bit `i` of `claims`), whose atomic claim and release order those accesses.
  private nonisolated(unsafe) let slots = UnsafeMutablePointer<Box?>.allocate(
    capacity: ScopeClaims.slotCount)

  /// Whether a read finds the innermost scope's box where the runtime keeps the binding (see
  /// ``taskLocalValueAddress(_:)``): checked once, as the instance is made, by binding a box and
  /// looking it up. Were the runtime ever to keep bindings differently, reads would copy the box
  /// out with `TaskLocal.get()` instead.
  let readsInPlace: Bool

  private init() {
    state = Locked(State())
    slots.initialize(repeating: nil, count: ScopeClaims.slotCount)
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
  @inline(__always)
  func read() -> WorldRead {
    if claims.isZero {
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
  func globalRead() -> WorldRead {
    WorldRead(state.withLock { $0.global })
  }

  /// ``read()`` where bindings cannot be read in place: the box copied out with
  /// `TaskLocal.get()`.
  func copyingRead() -> WorldRead {
    innermostBox?.pinnedRead() ?? globalRead()
  }

  /// The innermost scope's box, if the caller runs in a scope. With no scope anywhere (the
  /// fast path, see the type's comment), `nil` without the task-local lookup.
  private var innermostBox: Box? {
    @inline(__always) get {
      if claims.isZero { return nil }
      let box = innermost.get()
      return box === outside ? nil : box
    }
  }

  /// Makes `world` the innermost scope's world, else the global one.
  func assign(_ world: World) {
    if let box = innermostBox {
      box.world = world
    } else {
      let cell = WorldCell(world, inline: true)
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
    let global = state.withLock { $0.global.value }  // a copy: one retain, no release
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
    let (box, slot) = checkOut(world)
    // Runs once `withValue` has returned and unbound the box, also when `operation` throws.
    defer { checkIn(box, slot: slot, world) }
    do {
      // Borrowed: `withValue` copies the box into the binding itself.
      return try box._withUnsafeGuaranteedRef { box in
        try innermost.withValue(box, operation: operation)
      }
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
    let (box, slot) = checkOut(world)
    defer { checkIn(box, slot: slot, world) }
    do {
      return try await innermost.withValue(
        box.takeUnretainedValue(), operation: operation, isolation: isolation)
    } catch {
      throw error as! Failure
    }
  }

  /// Claims a slot (making its box at the slot's first claim), or, with every slot in use,
  /// makes a box; and lends the box `world`, which the caller holds until
  /// ``checkIn(_:slot:_:)``. A box in a slot is returned unretained (the slot holds it); a box
  /// made for the scope, retained once, for `checkIn` to release.
  @inline(__always)
  private func checkOut(_ world: borrowing World) -> (Unmanaged<Box>, slot: Int?) {
    let slot = claims.claim()
    let box: Unmanaged<Box>
    if let slot {
      if slots[slot] == nil { slots[slot] = Box() }
      // The slot's reference, read as bits rather than copied: the slot holds it.
      box = Unmanaged.fromOpaque(UnsafeRawPointer(slots + slot).load(as: UnsafeRawPointer.self))
    } else {
      box = Unmanaged.passRetained(Box())
    }
    box._withUnsafeGuaranteedRef { $0.start(borrowing: world) }
    return (box, slot)
  }

  /// Ends a scope, once its box is unbound: empties the box and frees its slot, unless an
  /// unstructured task created in the scope still holds the box. That box then keeps `world`
  /// (which it only borrowed until now), leaves its slot and stays counted until it
  /// deinitializes.
  @inline(__always)
  private func checkIn(_ box: Unmanaged<Box>, slot: Int?, _ world: borrowing World) {
    guard let slot else {
      var made = box.takeRetainedValue()
      guard isKnownUniquelyReferenced(&made) else {
        made.outlivesScope(keeping: copy world)
        return
      }
      let replacement = made.empty()
      claims.endOutside()
      _ = replacement  // released here, outside any lock
      return
    }
    guard isKnownUniquelyReferenced(&slots[slot]) else {
      let escaped = slots[slot].take().unsafelyUnwrapped
      escaped.outlivesScope(keeping: copy world)
      // Released once the count has moved, in case this is the last reference.
      withExtendedLifetime(escaped) { claims.releaseCountingOutside(slot: slot) }
      return
    }
    let replacement = box._withUnsafeGuaranteedRef { $0.empty() }
    claims.release(slot: slot)
    _ = replacement  // released here, outside any lock
  }

  /// Called by a box that outlived its scope, as it deinitializes.
  fileprivate func boxEnded() {
    claims.endOutside()
  }
}

extension Scopes {
  /// One scope's world. Child tasks share their scope's box, so an assignment made in any of
  /// them is seen by all.
  ///
  /// The world the scope started with is read in place without a lock: it is set before the
  /// box is bound to a task local, and set again only once the scope has ended and nothing
  /// else refers to the box (the next scope to take it). The box borrows it from the caller of `withWorld`, which holds it until
  /// the scope ends; if a task created in the scope still holds the box then, the box keeps a
  /// copy of its own (``outlivesScope(keeping:)``) before the caller can let go. An assignment
  /// inside the scope stores a replacement behind the box's lock and raises a flag; reads look
  /// behind the lock only once the flag is up. So the world a scope starts with stays where it
  /// is until the scope ends (or the box does, if it outlives the scope), and each replacement
  /// until the next assignment or the end of the scope (and, after that, for as long as a read
  /// that holds its cell lasts).
  final class Box: Sendable {
    /// Where the world the scope started with is, allocated once with the box: a bitwise copy
    /// of the caller's world, which counts no reference (the caller's keeps it alive, see the
    /// type's comment), so it is never released from here.
    ///
    /// nonisolated(unsafe): the world in it is written only while no task can reach the box
    /// (checked out of its slot and not yet bound); read only while the box is bound, after
    /// that write.
    nonisolated(unsafe) let initialSlot = UnsafeMutablePointer<World>
      .allocate(capacity: 1)
    private let state = Locked<State>(State())

    private struct State: Sendable {
      var replacement: WorldCell?
      /// The scope's first world, kept once the box outlived its scope; the box then counts
      /// itself out of `Scopes.claims` as it deinitializes.
      var kept: World?
    }
    /// Up once the scope's world has been replaced.
    let replaced = Flag()

    /// The world the scope started with, in place, unless it has been replaced.
    var unreplacedWorldSlot: UnsafeMutablePointer<World>? {
      replaced.isRaised ? nil : initialSlot
    }

    /// A read of the scope's world that holds what the world is stored in: the replacement's
    /// cell, or the box itself while the world was never replaced.
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
      get { replacement?.value ?? initialSlot.pointee }  // a copy, counted
      set {
        let cell = WorldCell(newValue, inline: true)
        let old = state.withLock { state in
          defer { replaced.raise() }
          return state.replacement.replace(with: cell)
        }
        _ = old  // released outside the lock
      }
    }

    /// Lends the box the scope's first world, which the caller holds until the scope has
    /// ended (the box is not bound yet): a bitwise copy, without a reference count.
    @inline(__always)
    func start(borrowing world: borrowing World) {
      withUnsafePointer(to: world) { world in
        UnsafeMutableRawPointer(initialSlot).copyMemory(
          from: world, byteCount: MemoryLayout<World>.size)
      }
    }

    /// Takes the replacement out, so a pooled box keeps nothing of the user's alive (the first
    /// world was only borrowed, and its copy is left behind as bits).
    ///
    /// Called only while the caller holds the one reference to the box, so no assignment can
    /// race with it; a box whose world was never replaced skips the lock.
    @inline(__always)
    func empty() -> WorldCell? {
      guard replaced.isRaised else { return nil }  // never replaced: nothing to take out
      return state.withLock { state in
        replaced.lower()
        return state.replacement.take()
      }
    }

    /// Keeps `world`, the scope's first world, for a box that a task still holds as its scope
    /// ends, and makes the box count itself out of `Scopes.claims` when it deinitializes.
    func outlivesScope(keeping world: World) {
      state.withLock { $0.kept = world }
    }

    deinit {
      let kept = state.withLock { $0.kept.take() }
      if kept != nil {
        Scopes.shared.boxEnded()
      }
      _ = kept  // released here, outside the lock
      initialSlot.deallocate()
    }
  }

  /// A world in an object of its own, read in place by whoever holds the object: the global
  /// world, and a scope's world after an assignment inside the scope. Immutable: assigning
  /// makes a new cell. Made `inline`: the world's fields release theirs through the
  /// trampoline already.
  typealias WorldCell = ImmutableBox<World>
}

/// Where a read of ``Current`` borrows the world from, for as long as the reading expression
/// needs it, and the object that keeps the world there until then: `nil` inside a scope whose
/// world was not replaced, where the scope's binding keeps its box, and the box its world.
struct WorldRead {
  /// The world, in place.
  let slot: UnsafeMutablePointer<World>
  /// What the read holds for as long as it lasts.
  let pin: AnyObject?

  init(slot: UnsafeMutablePointer<World>, pin: AnyObject?) {
    self.slot = slot
    self.pin = pin
  }

  /// A read of the world in `cell`, holding it.
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
@_silgen_name("swift_task_localValueGet")
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
    static let shared = Scopes()

    /// Calls `body` with the one instance.
    @inline(__always)
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
  let sharedAddress = Atomic<UInt>(0)

  extension Scopes {
    /// The one instance.
    static var shared: Scopes {
      withShared { $0 }
    }

    /// Calls `body` with the one instance, borrowed: the global holds it for the life of the
    /// process, so no reference is counted.
    @inline(__always)
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
    static var made: Scopes {
      let scopes = instance
      sharedAddress.store(
        UInt(bitPattern: Unmanaged.passUnretained(scopes).toOpaque()), ordering: .releasing)
      return scopes
    }

    private static let instance = Scopes()
  }
#endif
