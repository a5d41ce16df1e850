import Foundation

/// Where a `KeyValueStore` keeps its values. Values passed in are already normalized.
protocol KeyValueBackend: Sendable {
  func set(_ value: any Sendable, forKey key: String)
  func value(forKey key: String) -> (any Sendable)?
  func removeValue(forKey key: String)
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
}

/// Values in the user defaults of one suite (`nil`: the standard user defaults).
///
/// Keeps the suite's name rather than the `UserDefaults` object, which is `Sendable` in some
/// SDKs and explicitly not in others; user defaults cache their suites, so looking one up per
/// call is cheap.
final class UserDefaultsBackend: KeyValueBackend {
  private let suiteName: String?

  /// Returns `nil` when the system refuses the suite's name.
  init?(suiteName: String?) {
    guard suiteName == nil || UserDefaults(suiteName: suiteName) != nil else { return nil }
    self.suiteName = suiteName
  }

  private var defaults: UserDefaults {
    suiteName.flatMap(UserDefaults.init(suiteName:)) ?? .standard
  }

  func set(_ value: any Sendable, forKey key: String) {
    defaults.set(value, forKey: key)
  }

  func value(forKey key: String) -> (any Sendable)? {
    defaults.object(forKey: key).flatMap(PropertyList.normalized)
  }

  func removeValue(forKey key: String) {
    defaults.removeObject(forKey: key)
  }
}

/// Turns what a property-list API returns (bridged Foundation objects, `[Any?]`,
/// `[AnyHashable: Any?]`) into the plain Swift values that both stores hand out.
enum PropertyList {
  /// The plain Swift form of `object`, or `nil` when it is not a property-list value.
  static func normalized(_ object: Any) -> (any Sendable)? {
    #if canImport(Darwin)
      // Apple platforms hand back numbers and booleans as NSNumber.
      if type(of: object) is NSNumber.Type, let number = object as? NSNumber {
        if CFGetTypeID(number) == CFBooleanGetTypeID() { return number.boolValue }
        if CFNumberIsFloatType(number as CFNumber) { return number.doubleValue }
        return number.intValue
      }
    #endif
    switch unwrapped(object) {
    case let value as Bool: return value
    case let value as Int: return value
    case let value as Double: return value
    case let value as String: return value
    case let value as Date: return value
    case let value as Data: return value
    case let array as [Any]:
      var result: [any Sendable] = []
      result.reserveCapacity(array.count)
      for element in array {
        guard let value = normalized(element) else { return nil }
        result.append(value)
      }
      return result
    case let dictionary as [AnyHashable: Any]:
      var result: [String: any Sendable] = [:]
      for (key, element) in dictionary {
        guard let key = key.base as? String, let value = normalized(element) else { return nil }
        result[key] = value
      }
      return result
    default:
      return nil
    }
  }

  /// `object` without any `Optional` wrapping (`[Any?]` elements arrive wrapped).
  private static func unwrapped(_ object: Any) -> Any? {
    let mirror = Mirror(reflecting: object)
    guard mirror.displayStyle == .optional else { return object }
    return mirror.children.first.flatMap { unwrapped($0.value) }
  }
}
