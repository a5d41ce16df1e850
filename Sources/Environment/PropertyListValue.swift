import Foundation

/// A value that a ``KeyValueStore`` can hold: `Bool`, `Int`, `Double`, `String`, `Date`,
/// `Data`, and arrays and string-keyed dictionaries of them.
///
/// The conformances below are the whole set, so a store is handed only values that every
/// store can write. Do not conform other types: storing one stops the program with a message
/// naming the type. Convert it to one of these types first (a `RawRepresentable` enum's
/// `rawValue`, a `Codable` value's encoded `Data`).
///
/// ```swift
/// Current.storage.set(["tea": 2, "cake": 1], forKey: "basket")   // [String: Int]
/// ```
public protocol PropertyListValue: Sendable {}

extension Bool: PropertyListValue {}
extension Int: PropertyListValue {}
extension Double: PropertyListValue {}
extension String: PropertyListValue {}
extension Date: PropertyListValue {}
extension Data: PropertyListValue {}
extension Array: PropertyListValue where Element: PropertyListValue {}
extension Dictionary: PropertyListValue where Key == String, Value: PropertyListValue {}
