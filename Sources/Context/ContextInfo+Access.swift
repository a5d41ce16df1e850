extension ContextInfo {
  /// The value stored under `key`, or `nil`; assigning `nil` removes the stored value.
  ///
  /// Reading never stores anything. When `Value` is itself optional, assigning `nil` removes
  /// and assigning `.some(nil)` stores `nil`.
  ///
  /// ```swift
  /// let buttonKey = ContextKey<Button>("button")
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo[buttonKey]          // Optional(sender)
  /// alert.contextInfo[buttonKey] = nil    // removed
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The stored value, or `nil`.
  /// - Complexity: O(1) expected.
  public subscript<Value>(key: ContextKey<Value>) -> Value? {
    get { value(for: key.id, as: Value.self) }
    nonmutating set { setValue(newValue, for: key.id) }
  }

  /// The value stored under `key`, or the key's default where none is stored.
  ///
  /// Reading never stores anything, not even the default. Assigning stores the value, the
  /// default included; to make reads give the default again without storing it, remove the
  /// value with `removeValue(for:)`.
  ///
  /// ```swift
  /// let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
  /// row.contextInfo[expandedKey]          // false: the default
  /// row.contextInfo[expandedKey] = true
  /// row.contextInfo[expandedKey]          // true
  /// row.contextInfo[expandedKey].toggle() // false (a read, then a write: not atomic)
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The stored value, else the key's default.
  /// - Complexity: O(1) expected.
  public subscript<Value>(key: DefaultedContextKey<Value>) -> Value {
    get { value(for: key.id, as: Value.self) ?? key.defaultValue }
    nonmutating set { setValue(newValue, for: key.id) }
  }

  /// The value stored under `name`, for code ported from `contextInfo` dictionaries;
  /// assigning `nil` removes it.
  ///
  /// Named values are separate from the values of typed keys, whatever the keys' names. Any
  /// string is a valid name, the empty one included. Assigning an optional that is `nil`
  /// removes, as assigning `nil` does. Prefer ``ContextKey``s in new code: they are typed,
  /// cannot collide, and read faster.
  ///
  /// ```swift
  /// alert.contextInfo["legacy"] = 42
  /// alert.contextInfo["legacy"] as? Int   // Optional(42)
  /// alert.contextInfo["legacy"] = nil     // removed
  /// ```
  ///
  /// - Parameter name: The name the value is filed under.
  /// - Returns: The stored value, or `nil`.
  /// - Complexity: O(1) expected.
  public subscript(name: String) -> (any Sendable)? {
    get { existingStorage?.value(named: name) }
    nonmutating set {
      if newValue != nil {
        _ = storageForWriting.setValue(newValue, named: name)
      } else {
        removeValue(for: name)
      }
    }
  }

  /// Returns the value stored under `key`, first storing `makeValue()` if there is none: an
  /// atomic get-or-insert.
  ///
  /// Racing callers all get the one value that ends up stored. `makeValue` runs only when
  /// nothing is stored, outside the context's lock (so it may use the context); when two
  /// callers race, both may run it and the value of the one that stores first is returned to
  /// both, the other is discarded.
  ///
  /// ```swift
  /// let bufferKey = ContextKey<ResponseBuffer>("buffer")
  /// // In every callback of a connection, on whichever thread it runs:
  /// connection.contextInfo.value(for: bufferKey, orInsert: ResponseBuffer()).append(chunk)
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key the value is filed under.
  ///   - makeValue: Makes the value to store when none is stored.
  /// - Returns: The value stored under `key` when the call returns.
  /// - Throws: What `makeValue` throws (only if it throws); then nothing is stored.
  /// - Complexity: O(1) expected, plus `makeValue` when it runs.
  public func value<Value>(
    for key: ContextKey<Value>, orInsert makeValue: @autoclosure () throws -> Value
  ) rethrows -> Value {
    // `rethrows`, not typed throws: with an autoclosure, the error type of a non-throwing
    // argument is not inferred, so `orInsert: Data()` would not compile.
    if let stored = value(for: key.id, as: Value.self) {
      return stored
    }
    // A made box that is not stored is released at the end of this call, after the lock.
    let made = TypedBox(try makeValue())
    return storageForWriting.box(for: key.id, insertingIfAbsent: made).value(as: Value.self)
  }

  /// Removes the value stored under `key` and returns it.
  ///
  /// Removing where nothing is stored returns `nil` and changes nothing (on Linux it creates
  /// no context either).
  ///
  /// ```swift
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo.removeValue(for: buttonKey)   // Optional(sender)
  /// alert.contextInfo.removeValue(for: buttonKey)   // nil
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The removed value, or `nil` when none was stored.
  /// - Complexity: O(1) expected.
  @discardableResult
  public func removeValue<Value>(for key: ContextKey<Value>) -> Value? {
    setValue(Value?.none, for: key.id)
  }

  /// Removes the value stored under `key`, so that reads give the key's default again, and
  /// returns the removed value.
  ///
  /// ```swift
  /// row.contextInfo[expandedKey] = true
  /// row.contextInfo.removeValue(for: expandedKey)   // Optional(true)
  /// row.contextInfo[expandedKey]                    // false: the default
  /// row.contextInfo.removeValue(for: expandedKey)   // nil: the default is never stored
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The removed value (never the key's default), or `nil` when none was stored.
  /// - Complexity: O(1) expected.
  @discardableResult
  public func removeValue<Value>(for key: DefaultedContextKey<Value>) -> Value? {
    setValue(Value?.none, for: key.id)
  }

  /// Removes the value stored under `name` and returns it.
  ///
  /// ```swift
  /// alert.contextInfo["legacy"] = 42
  /// alert.contextInfo.removeValue(for: "legacy") as? Int   // Optional(42)
  /// alert.contextInfo.removeValue(for: "legacy")           // nil
  /// ```
  ///
  /// - Parameter name: The name the value is filed under.
  /// - Returns: The removed value, or `nil` when none was stored.
  /// - Complexity: O(1) expected.
  @discardableResult
  public func removeValue(for name: String) -> (any Sendable)? {
    existingStorage?.setValue(nil, named: name)
  }

  /// Removes every value, typed and named.
  ///
  /// The values are released after the context's lock. Keys with a default read as their
  /// default again. On an object without a context it does nothing.
  ///
  /// ```swift
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo["legacy"] = 42
  /// alert.contextInfo.removeAll()
  /// alert.contextInfo[buttonKey]   // nil
  /// alert.contextInfo["legacy"]    // nil
  /// ```
  ///
  /// - Complexity: O(*n*), where *n* is the number of values, to release them.
  public func removeAll() {
    _ = existingStorage?.takeAll()
  }

  /// Whether nothing is stored: no typed value (defaults do not count) and no named value.
  ///
  /// ```swift
  /// ContextInfo().isEmpty   // true
  /// ```
  public var isEmpty: Bool {
    (existingStorage?.count ?? 0) == 0
  }
}
