import Foundation

/// Persistent key-value storage for property-list values: the world's `storage`.
///
/// Two stores share this one interface: ``inMemory()``, which keeps values in memory only and
/// never touches the disk, and ``userDefaults(suiteName:)``, the live one. A store is a handle:
/// copies of a store, and copies of a world holding it, read and write the same values.
///
/// ```swift
/// Current.storage.set("ada", forKey: "user")
/// Current.storage.value(forKey: "user")                 // "ada"
/// Current.storage.value(forKey: "user", as: String.self) // "ada"
/// Current.storage.removeValue(forKey: "user")
/// Current.storage.value(forKey: "user")                 // nil
/// ```
///
/// Values read back as plain Swift values with the same types in both stores: `Bool`, `Int`,
/// `Double`, `String`, `Date`, `Data`, `[any Sendable]` for arrays and
/// `[String: any Sendable]` for dictionaries. Cast to the type you stored
/// (`as? [Int]`), or use ``value(forKey:as:)``.
///
/// Every method is safe to call from any thread.
public struct KeyValueStore: Sendable {
  /// Where the values live.
  let backend: any KeyValueBackend

  /// Returns a new, empty store that keeps its values in memory only.
  ///
  /// It never reads or writes a file, a temporary directory or the user defaults; its values
  /// are gone when the last copy of the store is released. ``World/mock`` starts with one.
  ///
  /// ```swift
  /// let store = KeyValueStore.inMemory()
  /// store.set(3, forKey: "launches")
  /// store.value(forKey: "launches")     // 3
  /// ```
  ///
  /// - Returns: An empty in-memory store.
  public static func inMemory() -> KeyValueStore {
    KeyValueStore(backend: InMemoryBackend())
  }

  /// Returns the store backed by the user defaults: the standard ones, or those of the suite
  /// named `suiteName`.
  ///
  /// This is the live store, which ``World/live`` uses with the standard user defaults. The
  /// system writes its values to disk on its own schedule (on Linux,
  /// `~/.config/<suite>.plist`).
  ///
  /// ```swift
  /// let settings = KeyValueStore.userDefaults(suiteName: "group.com.example.app")
  /// ```
  ///
  /// - Parameter suiteName: The suite's name, or `nil` for the standard user defaults. A name
  ///   the system refuses (such as the app's own bundle identifier, or `"NSGlobalDomain"`)
  ///   is a programmer error: the program stops with a message naming it.
  /// - Returns: A store reading and writing those user defaults.
  public static func userDefaults(suiteName: String? = nil) -> KeyValueStore {
    guard let backend = UserDefaultsBackend(suiteName: suiteName) else {
      fatalError(
        "KeyValueStore.userDefaults(suiteName:): UserDefaults refused the suite name "
          + "\"\(suiteName ?? "")\"")
    }
    return KeyValueStore(backend: backend)
  }

  /// Stores `value` under `key`, replacing any value stored there.
  ///
  /// An empty key is a key like any other. Storing into an array or a dictionary a type that
  /// is not a property-list value (possible only by conforming your own type to
  /// ``PropertyListValue``) is a programmer error: the program stops with a message naming the
  /// type, in both stores.
  ///
  /// ```swift
  /// Current.storage.set(["tea", "cake"], forKey: "basket")
  /// ```
  ///
  /// - Parameters:
  ///   - value: A property-list value: `Bool`, `Int`, `Double`, `String`, `Date`, `Data`, or
  ///     arrays and string-keyed dictionaries of them.
  ///   - key: The key to store it under.
  public func set(_ value: some PropertyListValue, forKey key: String) {
    guard let normalized = PropertyList.normalized(value) else {
      fatalError(
        "KeyValueStore.set(_:forKey:): \(type(of: value)) is not a property-list value "
          + "(key \"\(key)\")")
    }
    backend.set(normalized, forKey: key)
  }

  /// Returns the value stored under `key`, or `nil` when there is none.
  ///
  /// Arrays read back as `[any Sendable]` and dictionaries as `[String: any Sendable]`, whose
  /// elements are plain Swift values; cast to the type you stored.
  ///
  /// ```swift
  /// Current.storage.value(forKey: "basket") as? [String]   // ["tea", "cake"]
  /// Current.storage.value(forKey: "missing")               // nil
  /// ```
  ///
  /// - Parameter key: The key to look up.
  /// - Returns: The stored value, or `nil`.
  public func value(forKey key: String) -> (any Sendable)? {
    backend.value(forKey: key)
  }

  /// Returns the value stored under `key` as a `Value`, or `nil` when there is none or it has
  /// another type.
  ///
  /// ```swift
  /// Current.storage.value(forKey: "basket", as: [String].self)   // ["tea", "cake"]
  /// Current.storage.value(forKey: "basket", as: Int.self)        // nil
  /// ```
  ///
  /// - Parameters:
  ///   - key: The key to look up.
  ///   - type: The type to read the value as.
  /// - Returns: The stored value as a `Value`, or `nil`.
  public func value<Value: PropertyListValue>(
    forKey key: String, as type: Value.Type = Value.self
  ) -> Value? {
    backend.value(forKey: key) as? Value
  }

  /// Removes the value stored under `key`; does nothing when there is none.
  ///
  /// ```swift
  /// Current.storage.removeValue(forKey: "user")
  /// ```
  ///
  /// - Parameter key: The key whose value to remove.
  public func removeValue(forKey key: String) {
    backend.removeValue(forKey: key)
  }
}
