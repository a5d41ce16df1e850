import Foundation
import TinyInternals

/// One context's values behind a lock: the thin, locked shell around ``ContextValues``.
///
/// Values that an operation replaces or removes are handed back out of the locked region and
/// released after it, so a value's `deinit` never runs under the lock (it may use contexts
/// itself). Reads copy the value under the lock; copying runs no user code.
///
/// When the context itself goes, its values are released through the trampoline: a value may
/// be an object whose own context holds the next object, and so on (a chain of owners), and
/// releasing them one inside the other would nest as deep as the chain. On the trampoline,
/// each context's values are released after the current one's, on the same thread.
final class ContextStorage: Sendable {
  let values = Locked(ContextValues())

  init() {}

  deinit {
    var taken: ContextValues? = values.withLock { values in
      defer { values = ContextValues() }
      return values
    }
    guard taken?.count != 0 else { return }
    // The closure holds the only reference to the values: they go when it runs.
    Trampoline.run { _ = taken.take() }
  }

  /// The value stored under `key`, if any; else, with `orDefault`, the key's default.
  func value<Value>(for key: ContextKey<Value>, orDefault: Bool = false) -> Value? {
    let found = values.withLock { values -> (found: Bool, value: Value?) in
      guard let position = values.position(of: key.id) else { return (false, nil) }
      return (true, values.value(at: position, as: Value.self))
    }
    if found.found { return found.value }
    return orDefault ? Self.defaultValue(of: key) : nil
  }

  /// The key's default value; out of line, so that reading a stored value needs no metadata
  /// for `Optional<Value>` (a lookup that measured a third of a read).
  @inline(never)
  static func defaultValue<Value>(of key: ContextKey<Value>) -> Value? {
    key.defaultValue
  }

  /// Stores `value` under `key`, replacing what was there.
  func setValue<Value>(_ value: Value, for key: ContextKey<Value>) {
    // A value replaced in its box comes back in `value`; a replaced box in `replaced`. Both
    // are released here, after the lock.
    var value = value
    let replaced = values.withLock { $0.setValue(&value, for: key.id) }
    withExtendedLifetime(replaced) {}
    withExtendedLifetime(value) {}
  }

  /// Returns the value stored under `key`, first storing `value` if there is none.
  func value<Value>(for key: ContextKey<Value>, insertingIfAbsent value: Value) -> Value {
    // A box that is not stored is released here, after the lock.
    let box = TypedBox(value)
    return values.withLock { $0.value(for: key.id, insertingIfAbsent: box).stored }
  }

  /// Removes the value stored under `key` and returns it, if any.
  func removeValue<Value>(for key: ContextKey<Value>) -> Value? {
    values.withLock { $0.removeValue(for: key.id) }.map(TypedBox<Value>.unwrap)
  }

  /// The value stored under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    values.withLock { $0.value(named: name) }
  }

  /// Stores `value` under `name`, replacing what was there.
  func setValue(_ value: any Sendable, named name: String) {
    let replaced = values.withLock { $0.setValue(value, named: name) }
    withExtendedLifetime(replaced) {}  // released here, after the lock
  }

  /// Removes the value stored under `name` and returns it, if any.
  func removeValue(named name: String) -> (any Sendable)? {
    values.withLock { $0.removeValue(named: name) }
  }

  /// Removes every value.
  func removeAll() {
    let removed = values.withLock { values in
      defer { values = ContextValues() }
      return values
    }
    withExtendedLifetime(removed) {}  // released here, after the lock
  }

  /// The number of stored values, typed and named.
  var count: Int {
    values.withLock { $0.count }
  }

  /// The identities of the values that are objects themselves (see
  /// ``ContextValues/objectIdentities()``), read from a copy taken under the lock.
  func objectIdentities() -> [ObjectIdentifier] {
    let snapshot = values.withLock { $0 }
    return snapshot.objectIdentities()
  }
}
