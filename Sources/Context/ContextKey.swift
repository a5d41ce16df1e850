/// A typed key for a value in a ``ContextInfo``, unique by identity.
///
/// Two keys never collide, even when they share a name: each key created is a new key, and
/// the name is only for reading in a debugger. Keep a key for as long as you read its values,
/// usually in a global or a static property of a non-generic type (static stored properties
/// are not allowed in generic types and their extensions):
///
/// ```swift
/// let buttonKey = ContextKey<Button>("button")
/// let expandedKey = ContextKey<Bool>("expanded", default: false)
///
/// enum RowKeys {
///   static let height = ContextKey<Double>("height")
/// }
/// ContextKey<Int>("count") === ContextKey<Int>("count")   // false: two different keys
/// ```
///
/// A key with a default value reads as that value in every context where it has none stored;
/// the default itself is never stored.
public final class ContextKey<Value: Sendable>: Sendable {
  /// The name given at creation, for debugging; it plays no part in finding values.
  ///
  /// ```swift
  /// ContextKey<Bool>("expanded").name   // "expanded"
  /// ```
  public let name: String

  /// The value a read returns where the key has no stored value, or `nil` when the key has no
  /// default.
  ///
  /// ```swift
  /// ContextKey<Bool>("expanded", default: false).defaultValue   // Optional(false)
  /// ContextKey<Bool>("selected").defaultValue                   // nil
  /// ```
  public let defaultValue: Value?

  /// The identity that stored values are filed under: unique among all keys of the process.
  let id: UInt64

  /// Creates a key without a default value: reading it where nothing is stored gives `nil`.
  ///
  /// Any name is accepted, the empty one included; it only labels the key in descriptions.
  ///
  /// ```swift
  /// let buttonKey = ContextKey<Button>("button")
  /// alert.contextInfo[buttonKey]   // nil until something is stored
  /// ```
  ///
  /// - Parameter name: A label for debugging.
  public init(_ name: String) {
    self.name = name
    self.defaultValue = nil
    self.id = KeyIdentities.next()
  }

  /// Creates a key whose reads give `defaultValue` wherever nothing is stored.
  ///
  /// ```swift
  /// let expandedKey = ContextKey<Bool>("expanded", default: false)
  /// row.contextInfo[expandedKey]   // Optional(false) until something is stored
  /// ```
  ///
  /// - Parameters:
  ///   - name: A label for debugging.
  ///   - defaultValue: What a read returns where the key has no stored value.
  public init(_ name: String, default defaultValue: Value) {
    self.name = name
    self.defaultValue = defaultValue
    self.id = KeyIdentities.next()
  }
}
