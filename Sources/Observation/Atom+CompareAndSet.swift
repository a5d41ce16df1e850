import TinyInternals

extension Atom where Value: Equatable {
  /// Replaces the value with `newValue` if it equals `expected`, atomically; returns whether it
  /// did.
  ///
  /// When the value differs, nothing changes and no change is delivered. While optimistic
  /// updates are pending, the comparison and the replacement are made on the confirmed value,
  /// as for every plain update.
  ///
  /// `==` is user code, so it runs outside the atom's lock, on a snapshot of the value; when the
  /// atom changed between the snapshot and the replacement, the comparison runs again on the
  /// new value. So `==` may run more than once, and may use the atom.
  ///
  /// ```swift
  /// let name = Atom("Ada")
  /// name.compareAndSet(expected: "Ada", to: "Bob")    // true; name.value == "Bob"
  /// name.compareAndSet(expected: "Ada", to: "Eve")    // false; still "Bob"
  /// ```
  ///
  /// - Parameters:
  ///   - expected: The value the atom must hold for the replacement to happen.
  ///   - newValue: The replacement.
  /// - Returns: Whether the value was replaced.
  @discardableResult
  public func compareAndSet(expected: Value, to newValue: Value) -> Bool {
    while true {
      // `==` is user code: compare a snapshot outside the lock, then replace the value only if
      // nothing changed since the snapshot; otherwise compare again.
      let (current, version) = state.withLock { ($0.confirmedValue, $0.version) }
      guard current == expected else { return false }
      var outcome = Outcome<Value>()
      let swapped = state.withLock { state -> Bool in
        guard state.version == version else { return false }
        _ = state.update(confirming: { $0 = newValue }, error: nil, &outcome)
        return true
      }
      guard swapped else { continue }
      if let batch = outcome.batch { deliver(batch) }
      return true
    }
  }
}
