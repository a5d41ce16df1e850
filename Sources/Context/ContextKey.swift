/// A typed key for a value in a ``ContextInfo``, unique by identity; it reads as `Value?`.
///
/// Two keys never collide, even when they share a name: each key created is a new key, and
/// the name is only for reading in a debugger. Keep a key for as long as you read its values,
/// usually in a global or a static property of a non-generic type (static stored properties
/// are not allowed in generic types and their extensions):
///
/// ```swift
/// let buttonKey = ContextKey<Button>("button")
///
/// enum RowKeys {
///   static let height = ContextKey<Double>("height")
/// }
/// ContextKey<Int>("count") === ContextKey<Int>("count")   // false: two different keys
/// ```
///
/// A key that should read as a value wherever nothing is stored is a
/// ``DefaultedContextKey``: it reads as `Value`, not `Value?`.
public final class ContextKey<Value: Sendable>: Sendable {
  /// The name given at creation, for debugging; it plays no part in finding values.
  ///
  /// ```swift
  /// ContextKey<Bool>("selected").name   // "selected"
  /// ```
  public let name: String

  /// The identity that stored values are filed under: unique among all keys of the process.
  let id = KeyIdentities.next()

  /// Creates a key: reading it where nothing is stored gives `nil`.
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
  }

  /// A key with a default is a ``DefaultedContextKey``, which reads as `Value`.
  ///
  /// ```swift
  /// let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
  /// row.contextInfo[expandedKey]   // false: a Bool, not a Bool?
  /// ```
  @available(
    *, unavailable,
    message: "a key with a default is a DefaultedContextKey<Value>, which reads as Value"
  )
  public init(_ name: String, default defaultValue: Value) {
    fatalError("ContextKey.init(_:default:) is unavailable: use DefaultedContextKey")
  }
}

/// A typed key for a value in a ``ContextInfo`` that reads as its default wherever nothing is
/// stored: it reads as `Value`, never `nil`.
///
/// Like a ``ContextKey``, it is unique by identity and its name is only for debugging. The
/// default itself is never stored: reading stores nothing, and removing the stored value with
/// `removeValue(for:)` makes reads give the default again.
///
/// ```swift
/// let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
/// let failuresKey = DefaultedContextKey<Int>("failures", default: 0)
/// row.contextInfo[expandedKey]                  // false
/// row.contextInfo[expandedKey] = true
/// row.contextInfo[failuresKey] += 1             // reads 0, stores 1 (not atomic)
/// row.contextInfo.removeValue(for: expandedKey) // reads give false again
/// ```
public final class DefaultedContextKey<Value: Sendable>: Sendable {
  /// The name given at creation, for debugging; it plays no part in finding values.
  ///
  /// ```swift
  /// DefaultedContextKey<Bool>("expanded", default: false).name   // "expanded"
  /// ```
  public let name: String

  /// The value a read returns where the key has no stored value.
  ///
  /// ```swift
  /// DefaultedContextKey<Bool>("expanded", default: false).defaultValue   // false
  /// ```
  public let defaultValue: Value

  /// The identity that stored values are filed under: unique among all keys of the process.
  let id = KeyIdentities.next()

  /// Creates a key whose reads give `defaultValue` wherever nothing is stored.
  ///
  /// ```swift
  /// let expandedKey = DefaultedContextKey<Bool>("expanded", default: false)
  /// row.contextInfo[expandedKey]   // false until something is stored
  /// ```
  ///
  /// - Parameters:
  ///   - name: A label for debugging.
  ///   - defaultValue: What a read returns where the key has no stored value.
  public init(_ name: String, default defaultValue: Value) {
    self.name = name
    self.defaultValue = defaultValue
  }
}
