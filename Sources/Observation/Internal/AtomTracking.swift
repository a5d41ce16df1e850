import Observation

/// What an atom needs to take part in Apple's `Observation`: an `ObservationRegistrar`, and a
/// flag that says whether a registration may be waiting for the next change.
///
/// An atom makes it at the first read of its value, because a read is the only moment at which
/// Observation can be told about the atom; a set, a watch or an update never makes it. So an
/// atom that is only updated and watched never holds a registrar, and its updates check one
/// `nil` field.
///
/// This base class is what an atom gets where the Observation framework is missing (before
/// macOS 14, iOS 17, tvOS 17, watchOS 10): one shared instance whose changes do nothing (the
/// atom records no read there). ``AtomRegistration`` is the working subclass, and where the
/// framework is available every atom's tracking is one, so a read calls it directly.
class AtomTracking: @unchecked Sendable {
  // @unchecked: every stored property, here and in the subclass, is a `Sendable` constant.

  /// Raised whenever Observation hashes the key path the atom registers reads under: when a
  /// tracked read records it, and when the tracking closure's registration stores it. Never
  /// raised for a read that nothing tracks.
  let armed: TrackingFlag

  init(armed: TrackingFlag) {
    self.armed = armed
  }

  /// The inert instance, for every atom where Observation is not available.
  static let inert = AtomTracking(armed: TrackingFlag())

  /// The tracking for a new atom: a registration where Observation is available, the inert
  /// instance elsewhere.
  static func make() -> AtomTracking {
    if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
      return AtomRegistration()
    }
    return inert
  }

  /// Tells Observation that the value changed, when a registration may be waiting for it. Runs
  /// the registrations' `onChange` handlers, which are user code: call it outside every lock.
  func notifyChange() {}
}

/// The tracking of an atom where Observation is available: the atom's reads are registered, and
/// its changes reported, under one key path of this object.
///
/// The key path's subscript argument is a ``ReadProbe``: Observation hashes it only when a read
/// is tracked or a registration is stored, and hashing raises ``AtomTracking/armed``. A change
/// reports to Observation only while the flag is up, and lowers it first, so an atom whose reads
/// nothing tracks never calls into the registrar when it changes. A registration stored after
/// that report raises the flag again, so the next change reaches it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
final class AtomRegistration: AtomTracking, Observable, @unchecked Sendable {
  // @unchecked: its stored properties are `Sendable` constants (the registrar is thread-safe).
  let registrar = ObservationRegistrar()
  let keyPath: KeyPath<AtomRegistration, Int>

  init() {
    let armed = TrackingFlag()
    keyPath = \AtomRegistration.[read: ReadProbe(armed)]
    super.init(armed: armed)
  }

  /// What the key path names; Observation never reads it.
  subscript(read probe: ReadProbe) -> Int { 0 }

  /// Tells Observation that the value was read (a tracking closure, such as a SwiftUI `body`,
  /// then registers for its next change). Costs one thread-local read when nothing tracks.
  ///
  /// The atom calls it under its lock, before it reads the value: it calls no user code, and a
  /// tracked read raises ``AtomTracking/armed`` there, so a change stored after the read
  /// reports. Inlined into the reading code, so a read makes one call, into Observation.
  func recordRead() {
    registrar.access(self, keyPath: keyPath)
  }

  override func notifyChange() {
    guard armed.lower() else { return }
    registrar.withMutation(of: self, keyPath: keyPath) {}
  }
}

/// The subscript argument of an atom's tracking key path: hashing it raises the atom's flag.
/// Copies are equal when they raise the same flag.
struct ReadProbe: Hashable, Sendable {
  let armed: TrackingFlag

  init(_ armed: TrackingFlag) {
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
