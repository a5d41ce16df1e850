/// Data attached to an object: values filed under typed ``ContextKey``s or under names.
///
/// Reach an object's context through ``ContextCarrying/contextInfo``, or give a class its own
/// with a stored property (`let contextInfo = ContextInfo()`). A `ContextInfo` is a view: a
/// small value that refers to the context, so copies share it and it can be written through
/// a `let`.
///
/// ```swift
/// let buttonKey = ContextKey<Button>("button")
/// alert.contextInfo[buttonKey] = sender          // store
/// alert.contextInfo[buttonKey]                   // Optional(sender)
/// alert.contextInfo[buttonKey] = nil             // remove
/// let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
/// row.contextInfo[expandedKey]                   // false: a key with a default reads as Bool
/// alert.contextInfo["legacy"] = 42               // by name, for code ported from dictionaries
/// ```
///
/// Every operation is atomic and safe from any thread; a value that is replaced or removed is
/// released after the context's lock, on the calling thread, so its `deinit` may use contexts,
/// this one included. When a context goes, its values are released one context after another,
/// never one inside the other, so a chain of objects whose contexts hold the next object can be
/// any length. Keys are unique by identity, and the typed and the named values never mix:
/// `ContextKey<Int>("a")` and `"a"` file two different values.
///
/// **Keeping one.** Use `object.contextInfo` on the spot. A `ContextInfo` you keep refers to
/// the context it reached and keeps that context's values alive, even after the object is
/// gone; it never keeps the object alive. One made by ``ContextTable/contextInfo(for:)`` (the
/// default `contextInfo` on Linux) for an object without a context reaches the object's
/// context on the first use that finds one; if the object is gone before that, it reads as
/// empty and its first write makes a context of its own, attached to nothing.
public struct ContextInfo: Sendable {
  // Where the values are: exactly one of the two is set.

  /// The context, when it exists.
  let storage: ContextStorage?
  /// The context of an object that had none when this view was made.
  let pending: PendingContext?

  /// Creates an empty context, for a class to hold in a stored property.
  ///
  /// A class that owns its context this way has the exact lifetime on every platform (the
  /// values go when the instance goes) and the fastest reads:
  ///
  /// ```swift
  /// final class Row: ContextCarrying {
  ///   let contextInfo = ContextInfo()
  /// }
  /// Row().contextInfo["anything"]   // nil
  /// ```
  public init() {
    self.init(storage: ContextStorage())
  }

  init(storage: ContextStorage) {
    self.storage = storage
    self.pending = nil
  }

  init(pending: PendingContext) {
    self.storage = nil
    self.pending = pending
  }

  /// The context, or `nil` when the object has none (reading must not create it).
  var existingStorage: ContextStorage? {
    storage ?? pending!.storage(creating: false)
  }

  /// The context, created if the object has none.
  var storageForWriting: ContextStorage {
    // With `creating`, a pending context always gives a storage.
    storage ?? pending!.storage(creating: true)!
  }

  /// The value filed under the key identity `id`, whose key's value type is `Value`.
  func value<Value: Sendable>(for id: UInt64, as _: Value.Type) -> Value? {
    // `storage` first, without going through `existingStorage`: this is the read path.
    let box = storage?.box(for: id) ?? pending?.storage(creating: false)?.box(for: id)
    return box?.value(as: Value.self)
  }

  /// Files `value` under the key identity `id`, or with `nil` removes what is filed there;
  /// returns the value it replaced or removed, released by the caller after the lock.
  @discardableResult
  func setValue<Value: Sendable>(_ value: Value?, for id: UInt64) -> Value? {
    let replaced: StoredValue?
    if let value {
      replaced = storageForWriting.setBox(TypedBox(value), for: id)
    } else {
      replaced = existingStorage?.setBox(nil, for: id)
    }
    guard let replaced else { return nil }
    return replaced.value(as: Value.self)
  }
}
