/// A field that an app adds to the ``World``: its own API client, analytics, feature flags.
///
/// Declare a key with the field's live and mock values, then a property on `World` that reads
/// and writes through the key's subscript; the field then reads, and is replaced in tests,
/// exactly like a built-in one:
///
/// ```swift
/// struct API: Sendable {
///   var fetchCurrentUser: @Sendable () async throws -> User
/// }
///
/// enum APIKey: WorldKey {
///   static let liveValue = API(fetchCurrentUser: { try await HTTPClient.shared.currentUser() })
///   static let mockValue = API(fetchCurrentUser: {
///     User(name: "Ada", joined: Date(timeIntervalSinceReferenceDate: 0))
///   })
/// }
///
/// extension World {
///   var api: API {
///     get { self[APIKey.self] }
///     set { self[APIKey.self] = newValue }
///   }
/// }
///
/// try await Current.api.fetchCurrentUser()              // the live client
/// withWorld(.mock) { Current.api.fetchCurrentUser }      // the mock: never the network
/// ```
///
/// A world that holds no value for a key gives `liveValue` (in ``World/live`` and worlds made
/// from it) or `mockValue` (in ``World/mock`` and worlds made from it), reading the static
/// property each time; declare them with `static let` to share one instance.
///
/// `mockValue` is optional to declare. A key without one makes a mock world **stop the
/// program** when the key is read and no value was set for it, with a message naming the key:
/// a test that forgot to set up a client fails loudly instead of calling the live service.
/// Assigning the whole field first (`Current.api = API(fetchCurrentUser: { … })`) is always
/// fine; changing one member of it (`Current.api.fetchCurrentUser = …`) reads the field first,
/// so it needs a `mockValue` or an earlier assignment.
public protocol WorldKey {
  /// The type of the field's value.
  associatedtype Value: Sendable

  /// The value in the live world: the real client.
  static var liveValue: Value { get }

  /// The value in the mock world: a deterministic stand-in that never calls a live service.
  ///
  /// When a key does not declare it, reading the key in a mock world without setting it first
  /// stops the program with a message that names the key.
  static var mockValue: Value { get }
}

extension WorldKey {
  /// Stops the program with a message naming the key: this key has no mock, and a mock world
  /// must never fall back to the live value.
  public static var mockValue: Value {
    fatalError(
      """
      World.mock: \(String(reflecting: Self.self)) has no mockValue, and a mock world never \
      calls a live service. Declare `static var mockValue` on \(Self.self), or set the field \
      in the test's world before reading it.
      """)
  }
}

extension World {
  /// The value of an app-defined field: the one set in this world, else the key's
  /// `liveValue` or `mockValue`.
  ///
  /// A live world gives `Key.liveValue` for a key it holds no value for, a mock world
  /// `Key.mockValue` (which, when the key declares none, stops the program naming the key).
  /// Setting a value stores it in this world only. Wrap the subscript in a property to read
  /// the field like a built-in one; see ``WorldKey``.
  ///
  /// ```swift
  /// Current[APIKey.self] = API(fetchCurrentUser: { throw APIError(code: 401) })
  /// Current[APIKey.self].fetchCurrentUser     // the closure just set
  /// ```
  ///
  /// - Parameter key: The key's type.
  /// - Complexity: O(1) on average: a dictionary lookup by the key's type.
  public subscript<Key: WorldKey>(key: Key.Type) -> Key.Value {
    get {
      if let value = fields.read({ $0.keyed[ObjectIdentifier(key)] }) {
        // Only the setter below stores values, always under their own key.
        return value as! Key.Value
      }
      switch fields.read({ $0.keyDefaults }) {
      case .live: return Key.liveValue
      case .mock: return Key.mockValue
      }
    }
    set {
      update { $0.keyed[ObjectIdentifier(key)] = newValue }
    }
  }
}
