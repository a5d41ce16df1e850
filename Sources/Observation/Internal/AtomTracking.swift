import Observation

/// What an atom needs to take part in Apple's `Observation`, made at the first read of its value
/// (a read is the only moment Observation can learn of the atom; a set, an update or a watch
/// never makes it). ``AtomRegistration`` is the one kind there is: this base class only lets an
/// atom store it where the framework may be missing (before macOS 14, iOS 17, tvOS 17, watchOS 10,
/// where an atom never makes one).
@usableFromInline class AtomTracking: @unchecked Sendable {
  // @unchecked: every stored property, here and in the subclass, is a `Sendable` constant.

  /// Up while a tracked read or a stored registration may be waiting for the next change: a
  /// change reports to Observation only then, so an atom whose reads nothing tracks never calls
  /// into the registrar when it changes.
  @usableFromInline let armed: AtomicOrLocked

  init(armed: AtomicOrLocked) {
    self.armed = armed
  }

  /// Tells Observation that the value is being read. Called under the atom's lock, before the
  /// value is read, so that a change stored after the read finds ``armed`` up.
  func recordRead() {}

  /// Tells Observation that the value changed. It runs `onChange` handlers, which are user
  /// code: call it outside every lock.
  @usableFromInline func notifyChange() {}
}

/// The tracking of an atom where Observation is available: reads are registered, and changes
/// reported, under one key path of this object.
///
/// The key path's subscript argument is a ``ReadProbe``: Observation hashes it only when a read
/// is tracked or a registration is stored, and hashing raises ``AtomTracking/armed``. A change
/// lowers the flag before it reports; a registration stored after that raises it again.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class AtomRegistration: AtomTracking, Observable, @unchecked Sendable {
  // @unchecked: its stored properties are `Sendable` constants (the registrar is thread-safe).
  private let registrar = ObservationRegistrar()
  private let keyPath: KeyPath<AtomRegistration, Int>

  init() {
    let armed = AtomicOrLocked()
    keyPath = \AtomRegistration.[read: ReadProbe(armed)]
    super.init(armed: armed)
  }

  /// What the key path names; Observation never reads it.
  subscript(read probe: ReadProbe) -> Int { 0 }

  override func recordRead() {
    registrar.access(self, keyPath: keyPath)
  }

  override func notifyChange() {
    guard armed.lower() else { return }
    registrar.withMutation(of: self, keyPath: keyPath) {}
  }
}

/// The subscript argument of an atom's tracking key path: hashing it raises the atom's flag.
struct ReadProbe: Hashable, Sendable {
  let armed: AtomicOrLocked

  init(_ armed: AtomicOrLocked) {
    self.armed = armed
  }

  static func == (lhs: ReadProbe, rhs: ReadProbe) -> Bool {
    lhs.armed === rhs.armed
  }

  func hash(into hasher: inout Hasher) {
    armed.raise()
    hasher.combine(ObjectIdentifier(armed))
  }
}
