import Foundation

/// One context's values behind a lock: the thin, locked shell around ``ContextValues``.
///
/// Values that an operation replaces or removes are handed back out of the locked region and
/// released after it, so a value's `deinit` never runs under the lock (it may use contexts
/// itself). Reads copy the value under the lock; copying runs no user code.
///
/// The values live in a heap cell reached through a pointer rather than in a stored `var`:
/// the run-time exclusivity checks on a class's stored `var` measured a quarter of a read, and
/// the lock already makes every access exclusive.
final class ContextStorage: @unchecked Sendable {  // safe: `cell` is only touched under `lock`
  private let lock = NSLock()
  private let cell: UnsafeMutablePointer<ContextValues>

  init() {
    cell = .allocate(capacity: 1)
    cell.initialize(to: ContextValues())
  }

  deinit {
    cell.deinitialize(count: 1)
    cell.deallocate()
  }

  /// The values; touch only with `lock` held.
  private var values: ContextValues {
    _read { yield cell.pointee }
    _modify { yield &cell.pointee }
  }

  /// The value stored under `key`, if any; else, with `orDefault`, the key's default.
  func value<Value>(for key: ContextKey<Value>, orDefault: Bool = false) -> Value? {
    lock.lock()
    defer { lock.unlock() }
    guard let position = values.position(of: key.id) else {
      return orDefault ? Self.defaultValue(of: key) : nil
    }
    return values.value(at: position, as: Value.self)
  }

  /// The key's default value; out of line, so that reading a stored value needs no metadata
  /// for `Optional<Value>` (a lookup that measured a third of a read).
  @inline(never)
  private static func defaultValue<Value>(of key: ContextKey<Value>) -> Value? {
    key.defaultValue
  }

  /// Stores `value` under `key`, replacing what was there.
  func setValue<Value>(_ value: Value, for key: ContextKey<Value>) {
    let replaced = lock.holding { values.setValue(value, for: key.id) }
    withExtendedLifetime(replaced) {}  // released here, after the lock
  }

  /// Returns the value stored under `key`, first storing `value` if there is none.
  func value<Value>(for key: ContextKey<Value>, insertingIfAbsent value: Value) -> Value {
    lock.holding { values.value(for: key.id, insertingIfAbsent: value).stored }
  }

  /// Removes the value stored under `key` and returns it, if any.
  func removeValue<Value>(for key: ContextKey<Value>) -> Value? {
    lock.holding { values.removeValue(for: key.id) }.map(Typed<Value>.unwrap)
  }

  /// The value stored under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    lock.holding { values.value(named: name) }
  }

  /// Stores `value` under `name`, replacing what was there.
  func setValue(_ value: any Sendable, named name: String) {
    let replaced = lock.holding { values.setValue(value, named: name) }
    withExtendedLifetime(replaced) {}  // released here, after the lock
  }

  /// Removes the value stored under `name` and returns it, if any.
  func removeValue(named name: String) -> (any Sendable)? {
    lock.holding { values.removeValue(named: name) }
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
}
