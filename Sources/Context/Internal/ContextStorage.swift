import Foundation

/// One context's values behind a lock: the thin, locked shell around ``ContextValues``.
///
/// Values that an operation replaces or removes are handed back out of the locked region and
/// released after it, so a value's `deinit` never runs under the lock (it may use contexts
/// itself).
final class ContextStorage: @unchecked Sendable {  // safe: `values` is only touched under `lock`
  private let lock = NSLock()
  private var values = ContextValues()

  /// The value stored under `key`, if any.
  func value<Value>(for key: ContextKey<Value>) -> Value? {
    guard let box = lock.holding({ values.box(for: .typed(key.id)) }) else { return nil }
    return Self.unbox(box, as: Value.self)
  }

  /// The value stored under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    guard let box = lock.holding({ values.box(for: .named(name)) }) else { return nil }
    return Self.unbox(box, as: (any Sendable).self)
  }

  /// Stores `box` under `key`, replacing what was there.
  func store(_ box: AnyObject, for key: EntryKey) {
    let replaced = lock.holding { values.setBox(box, for: key) }
    withExtendedLifetime(replaced) {}  // released here, after the lock
  }

  /// Stores `box` under `key` unless something is stored there; returns what is stored there
  /// afterwards.
  func insert<Value>(_ box: ValueBox<Value>, ifAbsentFor key: ContextKey<Value>) -> Value {
    let stored = lock.holding { values.insertBox(box, ifAbsentFor: .typed(key.id)) }
    return Self.unbox(stored, as: Value.self)
  }

  /// Removes what is stored under `key` and returns the box, if any.
  func removeBox(for key: EntryKey) -> AnyObject? {
    lock.holding { values.removeBox(for: key) }
  }

  /// Removes every value.
  func removeAll() {
    let removed = lock.holding {
      defer { values = ContextValues() }
      return values
    }
    withExtendedLifetime(removed) {}  // released here, after the lock
  }

  /// The number of stored values, typed and named.
  var count: Int {
    lock.holding { values.count }
  }

  /// The value in a box filed under a key of type `Value`.
  ///
  /// Boxes are filed under a typed key's identity only by that key, whose type is `Value`,
  /// and under a name only as `ValueBox<any Sendable>`; so the cast cannot fail. Debug builds
  /// check it anyway (`unsafeDowncast` does in debug builds).
  static func unbox<Value: Sendable>(_ box: AnyObject, as _: Value.Type) -> Value {
    unsafeDowncast(box, to: ValueBox<Value>.self).value
  }
}
