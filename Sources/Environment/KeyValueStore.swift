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
/// **What is stored is kept, exactly.** Every value that ``set(_:forKey:)`` accepts reads back
/// equal, with its type, from both stores and, for the user-defaults store, in a later process:
/// `Int.min` and `Int.max`, `-0.0` (with its sign), NaN, ±infinity, dates to the last bit of
/// their `Double`, empty and large strings and data, and arrays and dictionaries nested up to
/// 256 levels deep. A value nested deeper is refused when it is set (the program stops with a
/// message), never dropped later.
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
  /// This is the live store, which ``World/live`` uses with the standard user defaults. Every
  /// store made for one suite reads and writes the same values.
  ///
  /// **When values reach the disk.**
  ///
  /// - On Linux (and every platform without a system defaults daemon), the store keeps the
  ///   suite's values in the file where Foundation's `UserDefaults` keeps that suite:
  ///   `<suite>.plist` in `$XDG_CONFIG_HOME`, which is `~/.config` by default (the standard
  ///   defaults use the main bundle's identifier, else the process's name). Each
  ///   ``set(_:forKey:)`` and ``removeValue(forKey:)`` writes the file before it returns, in
  ///   the binary property-list format (which keeps every `Double` and date exactly and which
  ///   `UserDefaults` reads), as a new file renamed over the old one, so a crash never leaves
  ///   half a file. The file is read when the store first needs it, and again before a write
  ///   when another process has changed it, so that its changes to other keys survive; reads
  ///   do not look at the file again. If the file cannot be written (a full disk, a folder
  ///   without permission), the change stays readable in the process, a message goes to
  ///   standard error, and the store writes it with the next change, the next ``flush()``, or
  ///   when the process exits normally.
  /// - On Apple platforms, the store uses `UserDefaults`: the system's defaults daemon holds
  ///   each value once the call returns, and writes the suite's file on its own schedule;
  ///   ``flush()`` asks for it now.
  ///
  /// Use one API per suite: a suite that this store and Foundation's `UserDefaults` both
  /// write in one process can lose changes (each keeps its own copy of the values on Linux).
  ///
  /// ```swift
  /// let settings = KeyValueStore.userDefaults(suiteName: "group.com.example.app")
  /// settings.set(true, forKey: "onboarded")   // on disk when this returns (Linux)
  /// ```
  ///
  /// - Parameter suiteName: The suite's name, or `nil` for the standard user defaults. A name
  ///   that is empty, contains `/` or a NUL character, is longer than 249 UTF-8 bytes (its
  ///   file name would not fit), or is `"NSGlobalDomain"`, or that `UserDefaults` refuses on
  ///   Apple platforms (such as the app's own bundle identifier), is a programmer error: the
  ///   program stops with a message naming it, on every platform. Any other name, `".."` and
  ///   `"a..b"` included, names a file directly in the user-defaults folder.
  /// - Returns: A store reading and writing those user defaults.
  public static func userDefaults(suiteName: String? = nil) -> KeyValueStore {
    if let suiteName, let problem = SuiteName.problem(with: suiteName) {
      fatalError(
        "KeyValueStore.userDefaults(suiteName:): the suite name \(String(reflecting: suiteName)) "
          + problem)
    }
    #if canImport(Darwin)
      guard let backend = UserDefaultsBackend(suiteName: suiteName) else {
        fatalError(
          "KeyValueStore.userDefaults(suiteName:): UserDefaults refused the suite name "
            + String(reflecting: suiteName ?? ""))
      }
    #else
      let backend = PropertyListFileBackend.shared(suiteName: suiteName)
    #endif
    return KeyValueStore(backend: backend)
  }

  /// Stores `value` under `key`, replacing any value stored there.
  ///
  /// An empty key is a key like any other. The value reads back exactly (see
  /// ``KeyValueStore``); the user-defaults store has it on disk when this returns on Linux
  /// (see ``userDefaults(suiteName:)``).
  ///
  /// Two values are refused, in both stores: arrays and dictionaries nested more than 256
  /// levels deep, and a type that is not one of the property-list types, on its own or inside
  /// an array or a dictionary (possible only by conforming another type, such as `Float` or
  /// `Int32`, to ``PropertyListValue``: it would not read back with its type). Both are
  /// programmer errors: the program stops with a message naming the key and the problem.
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
    let normalized: any Sendable
    do {
      normalized = try PropertyList.normalized(value, readingNumbers: false)
    } catch .tooDeep {
      fatalError(
        "KeyValueStore.set(_:forKey:): the value nests arrays and dictionaries more than "
          + "\(PropertyList.nestingLimit) levels deep (key \(String(reflecting: key)))")
    } catch .notAPropertyList(let found) where found != String(describing: type(of: value)) {
      fatalError(
        "KeyValueStore.set(_:forKey:): \(found), inside a \(type(of: value)), is not a "
          + "property-list value (key \(String(reflecting: key)))")
    } catch {
      fatalError(
        "KeyValueStore.set(_:forKey:): \(type(of: value)) is not a property-list value "
          + "(key \(String(reflecting: key)))")
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

  /// Writes to permanent storage every change that is not there yet, before returning.
  ///
  /// The in-memory store has nothing to write. The user-defaults store on Linux writes each
  /// change as it is made, so this only retries a write that failed; on Apple platforms it
  /// asks the system to write the suite's file now (`UserDefaults.synchronize()`). Calling it
  /// when everything is written does nothing.
  ///
  /// ```swift
  /// do {
  ///   try Current.storage.flush()
  /// } catch {
  ///   log("settings not saved: \(error)")
  /// }
  /// ```
  ///
  /// - Throws: ``KeyValueStoreError/notWritten(path:reason:)`` when the file still cannot be
  ///   written. The values stay readable in the process, and the store tries again later.
  public func flush() throws(KeyValueStoreError) {
    try backend.flush()
  }
}
