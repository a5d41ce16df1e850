extension ContextInfo {
  /// The value stored under `key`, or the key's default when none is stored; assigning `nil`
  /// removes the stored value.
  ///
  /// Reading never stores anything, not even the default. After a removal, reads give the
  /// key's default again. When `Value` is itself optional, assigning `nil` removes and
  /// assigning `.some(nil)` stores `nil`.
  ///
  /// ```swift
  /// let buttonKey = ContextKey<Button>("button")
  /// let expandedKey = ContextKey<Bool>("expanded", default: false)
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo[buttonKey]          // Optional(sender)
  /// row.contextInfo[expandedKey]          // Optional(false): the default
  /// row.contextInfo[expandedKey] = true
  /// row.contextInfo[expandedKey] = nil    // removed: reads give false again
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The stored value; else the key's default; else `nil`.
  /// - Complexity: O(1) expected.
  public subscript<Value>(key: ContextKey<Value>) -> Value? {
    get {
      value(for: key)
    }
    nonmutating set {
      if let newValue {
        storageForWriting.setValue(newValue, for: key)
      } else {
        removeValue(for: key)
      }
    }
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
    get {
      existingStorage?.value(named: name)
    }
    nonmutating set {
      if let newValue {
        storageForWriting.setValue(newValue, named: name)
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
  /// both, the other is discarded. The key's default value plays no part: with nothing
  /// stored, `makeValue()` is stored.
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
    if let stored = existingStorage?.value(for: key) {
      return stored
    }
    let made = try makeValue()
    return storageForWriting.value(for: key, insertingIfAbsent: made)
  }

  /// Removes the value stored under `key` and returns it.
  ///
  /// Afterwards reads give the key's default. Removing where nothing is stored returns `nil`
  /// and changes nothing (on Linux it creates no context either).
  ///
  /// ```swift
  /// alert.contextInfo[buttonKey] = sender
  /// alert.contextInfo.removeValue(for: buttonKey)   // Optional(sender)
  /// alert.contextInfo.removeValue(for: buttonKey)   // nil
  /// ```
  ///
  /// - Parameter key: The key the value is filed under.
  /// - Returns: The removed value (never the key's default), or `nil` when none was stored.
  /// - Complexity: O(1) expected.
  @discardableResult
  public func removeValue<Value>(for key: ContextKey<Value>) -> Value? {
    existingStorage?.removeValue(for: key)
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
    existingStorage?.removeValue(named: name)
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
    existingStorage?.removeAll()
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
