import Observation

/// An atom takes part in Apple's `Observation`: reading ``Atom/value`` inside
/// `withObservationTracking`, or in a SwiftUI view's `body`, registers the read, and the next
/// change of the atom, made on any thread, calls the registration's `onChange`.
///
/// ```swift
/// let count = Atom(0)
/// withObservationTracking {
///   _ = count.value                    // registers the read
/// } onChange: {
///   print("count changed")             // once, after the next change was stored
/// }
/// count.set(1)                         // prints "count changed"
/// ```
///
/// The `onChange` handler runs after the change took effect, on the thread that delivers it to
/// the atom's watchers (after them), outside every lock of the atom. Every change reports, as
/// every change reaches the watchers: a set to an equal value too; a failed
/// ``Atom/compareAndSet(expected:to:)``, a throwing ``Atom/update(_:)`` body and a successful
/// optimistic commit change nothing and report nothing.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension Atom: Observable {}

/// A derived atom takes part in Apple's `Observation` like an ``Atom``: reading
/// ``DerivedAtom/value`` inside `withObservationTracking`, or in a SwiftUI view's `body`,
/// registers the read, and the next recomputation that changes the value calls `onChange`. A
/// recomputation that gives an equal `Equatable` value changes nothing and reports nothing.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension DerivedAtom: Observable {}

/// What an atom needs to take part in Observation: a registrar, and the key path of the value.
/// Reading the value tells the registrar (`access`); the deliverer reports each change after the
/// watchers (`withMutation`), as the `@Observable` macro does for a stored property.
@usableFromInline struct AtomObservation<Value: Sendable>: Sendable {
  #if canImport(Darwin)
    /// The registrar, where the framework exists (macOS 14, iOS 17, tvOS 17, watchOS 10).
    @usableFromInline let registrar: (any Sendable)?
  #else
    @usableFromInline let registrar = ObservationRegistrar()
  #endif
  /// Raised by ``ReadProbe`` when Observation hashes the atom's key path (see there).
  let tracked = Flag()
  /// The key path Observation records reads and changes under.
  // nonisolated(unsafe): a key path is immutable; the standard library does not mark it Sendable.
  @usableFromInline nonisolated(unsafe) let keyPath: KeyPath<Atom<Value>, Value>

  init() {
    keyPath = \Atom<Value>.[probe: ReadProbe(tracked)]
    #if canImport(Darwin)
      if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) {
        registrar = ObservationRegistrar()
      } else {
        registrar = nil
      }
    #endif
  }

  /// Tells Observation that `atom`'s value is being read.
  @inlinable func access(_ atom: Atom<Value>) {
    #if canImport(Darwin)
      if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *),
        let registrar = registrar as? ObservationRegistrar
      {
        registrar.access(atom, keyPath: keyPath)
      }
    #else
      registrar.access(atom, keyPath: keyPath)
    #endif
  }

  /// Tells Observation that `atom`'s value changed; this runs `onChange` handlers (user code).
  @inlinable func reportChange(of atom: Atom<Value>) {
    #if canImport(Darwin)
      if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *),
        let registrar = registrar as? ObservationRegistrar
      {
        registrar.withMutation(of: atom, keyPath: keyPath) {}
      }
    #else
      registrar.withMutation(of: atom, keyPath: keyPath) {}
    #endif
  }
}

/// The argument of the key path an atom's reads and changes are recorded under: hashing it raises
/// the atom's tracking flag. Observation hashes the key path when it records a tracked read,
/// stores a registration for the next change, or finds a registration for a reported change
/// (then one more change reports, finds nothing and lowers the flag); an untracked read never
/// does. So a change whose flag is down has nobody to tell, and skips the registrar: an atom that
/// is read outside tracking keeps its updates at a lock's cost (the update goals).
struct ReadProbe: Hashable, Sendable {
  let tracked: Flag

  init(_ tracked: Flag) {
    self.tracked = tracked
  }

  static func == (lhs: ReadProbe, rhs: ReadProbe) -> Bool {
    lhs.tracked === rhs.tracked
  }

  func hash(into hasher: inout Hasher) {
    tracked.raise()
    hasher.combine(ObjectIdentifier(tracked))
  }
}

extension Atom {
  /// The value, under the name of the key path that Observation records it by.
  subscript(probe probe: ReadProbe) -> Value {
    state.withLock { $0.value }
  }
}
