import Foundation
import TinyInternals

/// Where a `KeyValueStore` keeps its values. Values passed in are already normalized.
protocol KeyValueBackend: Sendable {
  func set(_ value: any Sendable, forKey key: String)
  func value(forKey key: String) -> (any Sendable)?
  func removeValue(forKey key: String)
  /// Writes every change not yet in permanent storage, or throws why it cannot.
  func flush() throws(KeyValueStoreError)
}

/// Values in a dictionary, in memory only.
final class InMemoryBackend: KeyValueBackend {
  private let values = Locked<[String: any Sendable]>([:])

  func set(_ value: any Sendable, forKey key: String) {
    let replaced = values.withLock { $0.updateValue(value, forKey: key) }
    _ = replaced  // released outside the lock
  }

  func value(forKey key: String) -> (any Sendable)? {
    values.withLock { $0[key] }
  }

  func removeValue(forKey key: String) {
    let removed = values.withLock { $0.removeValue(forKey: key) }
    _ = removed  // released outside the lock
  }

  func flush() throws(KeyValueStoreError) {}
}

/// Values in the user defaults of one suite (`nil`: the standard user defaults), through
/// Foundation's `UserDefaults`: the live store on Apple platforms, where the system's defaults
/// daemon keeps every value it is handed and writes the suite's file itself.
///
/// Keeps the suite's name rather than the `UserDefaults` object, which is `Sendable` in some
/// SDKs and explicitly not in others; user defaults cache their suites, so looking one up per
/// call is cheap.
final class UserDefaultsBackend: KeyValueBackend {
  private let suiteName: String?

  /// Returns `nil` when `UserDefaults` refuses the suite's name.
  init?(suiteName: String?) {
    guard suiteName == nil || UserDefaults(suiteName: suiteName) != nil else { return nil }
    self.suiteName = suiteName
  }

  private var defaults: UserDefaults {
    suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
  }

  func set(_ value: any Sendable, forKey key: String) {
    defaults.set(PropertyList.object(value), forKey: key)
  }

  func value(forKey key: String) -> (any Sendable)? {
    defaults.object(forKey: key).flatMap { try? PropertyList.normalized($0) }
  }

  func removeValue(forKey key: String) {
    defaults.removeObject(forKey: key)
  }

  func flush() throws(KeyValueStoreError) {
    guard defaults.synchronize() else {
      throw .notWritten(
        path: "the user defaults of \(suiteName.map { "suite \"\($0)\"" } ?? "the app")",
        reason: "UserDefaults.synchronize() returned false")
    }
  }
}
