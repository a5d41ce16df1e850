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
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@usableFromInline final class AtomObservation<Value: Sendable>: Sendable {
  @usableFromInline let registrar = ObservationRegistrar()
  // nonisolated(unsafe): a key path is immutable; the standard library does not mark it Sendable.
  @usableFromInline nonisolated(unsafe) let keyPath: KeyPath<Atom<Value>, Value> = \.value

  init() {}
}
