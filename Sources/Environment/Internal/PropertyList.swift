import Foundation

/// Turns property-list values — a user's typed values, and what `PropertyListSerialization` and
/// `UserDefaults` hand back (bridged Foundation objects, `NSNumber`s) — into the plain Swift
/// values that both stores keep and hand out, and back into objects a property-list file holds.
enum PropertyList {
  /// The deepest nesting of arrays and dictionaries a store accepts: `[[1]]` nests 2 levels.
  ///
  /// A bound is needed because the property-list reader of swift-corelibs-foundation refuses
  /// a file nested deeper than 512 levels (the file's own dictionary included): a value it could
  /// write but never read back would be lost at the next launch. It also bounds the recursion
  /// below.
  static let nestingLimit = 256

  /// Why a value is refused.
  enum Problem: Error {
    /// A value of this type is not a property-list value.
    case notAPropertyList(String)
    /// Arrays and dictionaries nest deeper than ``PropertyList/nestingLimit``.
    case tooDeep
    /// An integer outside `Int`'s range (in a file written by another program).
    case outOfRange(String)
  }

  /// The plain Swift form of `object`, with arrays as `[any Sendable]` and dictionaries as
  /// `[String: any Sendable]`.
  ///
  /// - Parameters:
  ///   - object: A value to store, or one read from a property list.
  ///   - readingNumbers: Whether numbers of other types (`NSNumber`s, and what bridges to one)
  ///     are read as `Bool`, `Int` or `Double`: yes for what a property-list API hands back, no
  ///     for a caller's value, where a `Float` or an `Int32` (conformed by hand) would not read
  ///     back with its type.
  ///   - depth: How many arrays and dictionaries enclose `object`.
  /// - Returns: The plain Swift value.
  /// - Throws: Why `object` is not a value a store can hold.
  static func normalized(
    _ object: Any, readingNumbers: Bool = true, depth: Int = 0
  ) throws(Problem) -> any Sendable {
    // The values a store writes, by their exact type: an `NSNumber` also casts to `Bool`,
    // `Int` and `Double`, so numbers must never be told apart by casting.
    switch ObjectIdentifier(type(of: object)) {
    case ObjectIdentifier(Bool.self): return object as! Bool
    case ObjectIdentifier(Int.self): return object as! Int
    case ObjectIdentifier(Double.self): return object as! Double
    case ObjectIdentifier(String.self): return object as! String
    case ObjectIdentifier(Date.self): return object as! Date
    case ObjectIdentifier(Data.self): return object as! Data
    default: break
    }
    if readingNumbers, let number = object as? NSNumber {
      return try normalized(number)
    }
    switch object {
    case let value as String: return value
    case let value as Date: return value
    case let value as Data: return value
    case let array as [Any]:
      guard depth < nestingLimit else { throw .tooDeep }
      var result: [any Sendable] = []
      result.reserveCapacity(array.count)
      for element in array {
        result.append(
          try normalized(element, readingNumbers: readingNumbers, depth: depth + 1))
      }
      return result
    case let dictionary as [AnyHashable: Any]:
      guard depth < nestingLimit else { throw .tooDeep }
      var result: [String: any Sendable] = [:]
      result.reserveCapacity(dictionary.count)
      for (key, element) in dictionary {
        guard let key = key.base as? String else {
          throw .notAPropertyList("a dictionary key of type \(type(of: key.base))")
        }
        result[key] = try normalized(
          element, readingNumbers: readingNumbers, depth: depth + 1)
      }
      return result
    default:
      throw .notAPropertyList(String(describing: type(of: object)))
    }
  }

  /// The plain Swift form of a number read from a property list: its Objective-C type code
  /// tells a boolean (`c`, which is how every platform's property lists hand back `true` and
  /// `false`), a floating-point number (`f`, `d`) and an integer apart.
  private static func normalized(_ number: NSNumber) throws(Problem) -> any Sendable {
    switch String(cString: number.objCType) {
    case "c": return number.boolValue
    case "f", "d": return number.doubleValue
    case "C", "S", "I", "L", "Q":
      let value = number.uint64Value
      guard let exact = Int(exactly: value) else { throw .outOfRange("\(value)") }
      return exact
    default:
      return Int(number.int64Value)
    }
  }

  /// The object a property-list file holds for a normalized value.
  static func object(_ value: any Sendable) -> Any {
    switch value {
    case let array as [any Sendable]: return array.map(object)
    case let dictionary as [String: any Sendable]: return dictionary.mapValues(object)
    default: return value
    }
  }
}
