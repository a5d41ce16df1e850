/// One change of a watched value: the value before, the value after, and the error of a failed
/// optimistic commit that caused it, if any.
///
/// A change with ``isInitial`` set is not a change at all but the current value, delivered first
/// to a watch started with `includingInitial: true` and by ``ObservationGroup/begin()``; its
/// ``old`` and ``new`` are the same value.
///
/// ```swift
/// let token = name.watch { change in
///   print(change.old, "→", change.new)      // "" → "Ada"
/// }
/// name.set("Ada")
/// ```
public struct AtomChange<Value> {
  /// The value before the change (for an initial delivery, the current value).
  public let old: Value
  /// The value after the change: what ``Watchable/value`` returned right after it took effect.
  public let new: Value
  /// The error of the failed optimistic commit whose rollback made this change; `nil` for every
  /// other change.
  public let error: (any Error)?
  /// Whether this is the initial delivery of the current value rather than a change.
  public let isInitial: Bool

  /// Creates a change; types that adopt ``Watchable`` use it to describe their changes.
  ///
  /// - Parameters:
  ///   - old: The value before the change.
  ///   - new: The value after the change.
  ///   - error: The error that caused the change, if any.
  ///   - isInitial: Whether this is an initial delivery; then `old` and `new` should be equal.
  @inlinable
  public init(old: Value, new: Value, error: (any Error)? = nil, isInitial: Bool = false) {
    self.old = old
    self.new = new
    self.error = error
    self.isInitial = isInitial
  }

  /// The initial delivery of `value`: `old` and `new` are both `value`.
  static func initial(_ value: Value) -> Self {
    Self(old: value, new: value, isInitial: true)
  }
}

extension AtomChange: Sendable where Value: Sendable {}
