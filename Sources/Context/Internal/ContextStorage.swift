import TinyInternals

/// One context's values behind a lock: the thin, locked shell around ``ContextValues``.
///
/// Every operation that replaces or removes a value returns it, so that it is released by the
/// caller after the lock: a value's `deinit` never runs under the lock (it may use contexts
/// itself). Reads take a box out under the lock and its value after it; a box never changes,
/// so no user code runs under the lock to read (retaining a box is not user code).
///
/// When the context itself goes, its values are released through the trampoline: a value may
/// be an object whose own context holds the next object, and so on (a chain of owners), and
/// releasing them one inside the other would nest as deep as the chain. On the trampoline,
/// each context's values are released after the current one's, on the same thread.
final class ContextStorage: Sendable {
  private let values = Locked(ContextValues())
  /// Whether a lookup in the table that holds this context found it since the table's sweep
  /// last passed its slot (see ``SideTable``). After the values, so that it moves nothing of a
  /// read's.
  // nonisolated(unsafe): only read and written with the lock of the one table that holds it.
  nonisolated(unsafe) var wasLookedUp = false

  init() {}

  deinit {
    var taken = Optional(takeAll())
    guard taken?.count != 0 else { return }
    // The closure holds the only reference to the values: they go when it runs.
    Trampoline.run { _ = taken.take() }
  }

  /// The box filed under the key identity `id`, if any.
  func box(for id: UInt64) -> StoredValue? {
    values.withLock { $0.box(for: id) }
  }

  /// Files `box` under `id`, or with `nil` removes what is there; returns what it replaced.
  func setBox(_ box: StoredValue?, for id: UInt64) -> StoredValue? {
    values.withLock { $0.setBox(box, for: id) }
  }

  /// The box filed under `id`, first filing `box` there if nothing is.
  func box(for id: UInt64, insertingIfAbsent box: StoredValue) -> StoredValue {
    values.withLock { $0.box(for: id, insertingIfAbsent: box) }
  }

  /// The value filed under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    values.withLock { $0.value(named: name) }
  }

  /// Files `value` under `name`, or with `nil` removes what is there; returns what it replaced.
  func setValue(_ value: (any Sendable)?, named name: String) -> (any Sendable)? {
    values.withLock { $0.setValue(value, named: name) }
  }

  /// Removes every value and returns them, for the caller to release.
  func takeAll() -> ContextValues {
    values.withLock { values in
      defer { values = ContextValues() }
      return values
    }
  }

  /// The number of stored values, typed and named.
  var count: Int {
    values.withLock { $0.count }
  }

  /// The identities of the values that are objects themselves (see
  /// ``ContextValues/objectIdentities()``), read from a copy taken under the lock.
  func objectIdentities() -> [ObjectIdentifier] {
    values.withLock { $0 }.objectIdentities()
  }
}
