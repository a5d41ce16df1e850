import Dispatch
import Observation

extension ObservationGroup {
  /// Observes a property of an `@Observable` model; while the group is active, `handler`
  /// receives its changes on the main actor, starting with the current value.
  ///
  /// The model is read on the main actor, so it should be one the main actor owns. The toolchain's
  /// `withObservationTracking` reports a change *before* the property is written, so the group
  /// hops to the main queue, reads the new value there, delivers it, and tracks the property
  /// again. Changes therefore always arrive asynchronously, and several changes made before the
  /// hop arrive as one, with the latest value (`old` is the value last delivered).
  ///
  /// ```swift
  /// @Observable final class Session { var status = "signed out" }
  /// observations.observe(session, \.status) { [weak self] change in
  ///   self?.statusLabel.text = change.new
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - model: The `@Observable` model; the group holds it.
  ///   - keyPath: The property to observe; any property the key path reads is tracked.
  ///   - handler: Receives the initial value (flagged ``AtomChange/isInitial``) at each
  ///     ``begin()``, then the changes.
  /// - Returns: The observation's identifier, for ``remove(_:)``.
  @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
  @discardableResult
  public func observe<Model: Observable & AnyObject, Value>(
    _ model: Model,
    _ keyPath: KeyPath<Model, Value>,
    _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) -> ObservationID {
    add(ObservableMember(model, keyPath, handler))
  }
}

/// A group's observation of a property of an `@Observable` model.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
final class ObservableMember<Model: Observable & AnyObject, Value>: GroupMember {
  private let model: Model
  private let keyPath: KeyPath<Model, Value>
  private let handler: @MainActor @Sendable (AtomChange<Value>) -> Void
  private var run = MemberRun()
  private var last: Value?

  init(
    _ model: Model, _ keyPath: KeyPath<Model, Value>,
    _ handler: @escaping @MainActor @Sendable (AtomChange<Value>) -> Void
  ) {
    self.model = model
    self.keyPath = keyPath
    self.handler = handler
  }

  func start() {
    guard let number = run.start() else { return }
    let value = track(number)
    last = value
    handler(.initial(value))
  }

  func stop() {
    run.stop()
    last = nil
  }

  /// Reads the property and arms tracking for its next change; a change of run `number`
  /// re-reads it on the main queue.
  private func track(_ number: Int) -> Value {
    withObservationTracking {
      model[keyPath: keyPath]
    } onChange: { [weak self] in
      // Called before the new value is stored, on the thread that writes it.
      DispatchQueue.main.async {
        MainActor.assumeIsolated { self?.changed(number) }
      }
    }
  }

  private func changed(_ number: Int) {
    guard run.isCurrent(number), let old = last else { return }
    let new = track(number)
    last = new
    handler(AtomChange(old: old, new: new))
  }
}
