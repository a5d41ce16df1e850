/// The values of one context: a pure value, kept behind a lock by ``ContextStorage``.
///
/// Typed values are filed under their key's identity and named values under their name; the
/// two never meet, even when a key's name equals a string. Typed values are searched linearly
/// while there are few (a handful of integer comparisons beats hashing); past
/// `linearSearchLimit` a dictionary of positions is kept as well, so every operation stays
/// O(1) expected however many values a context holds. Removing a typed value moves the last
/// one into its place, so the arrays stay dense.
///
/// Operations hand back the values they replace or remove, for the caller to release once its
/// lock is released.
struct ContextValues: Sendable {
  /// Up to this many typed values, a linear search finds a value; beyond, `positions` does.
  static let linearSearchLimit = 16

  private var ids: [UInt64] = []
  /// `Typed<Value>` values, each at the position of its key's identity in `ids`.
  private var typed: [any Sendable] = []
  /// Each identity's position in `ids`; empty while there are few typed values.
  private var positions: [UInt64: Int] = [:]
  private var named: [String: any Sendable] = [:]

  /// The number of values, typed and named.
  var count: Int { ids.count + named.count }

  // MARK: Typed values

  /// The value filed under the key identity `id`, whose key's type is `Value`.
  func value<Value: Sendable>(for id: UInt64, as _: Value.Type) -> Value? {
    guard let position = find(id) else { return nil }
    return Typed<Value>.unwrap(typed[position])
  }

  /// The typed value at `position` (from ``position(of:)``), whose key's type is `Value`.
  ///
  /// `mutating` though it changes nothing: the caller then reads the values in place instead
  /// of copying the arrays out of its class first (which measured four retain/release pairs).
  @inline(__always)
  mutating func value<Value: Sendable>(at position: Int, as _: Value.Type) -> Value {
    // Through a buffer pointer, the stored existential is opened where it lies, not copied.
    typed.withUnsafeBufferPointer { Typed<Value>.unwrap($0[position]) }
  }

  /// Files `value` under `id` and returns the value it replaces, if any.
  mutating func setValue<Value: Sendable>(_ value: Value, for id: UInt64) -> (any Sendable)? {
    let wrapped: any Sendable = Typed(value)
    if let position = find(id) {
      defer { typed[position] = wrapped }
      return typed[position]
    }
    ids.append(id)
    typed.append(wrapped)
    if ids.count > Self.linearSearchLimit {
      if positions.isEmpty {
        for (position, id) in ids.enumerated() { positions[id] = position }
      } else {
        positions[id] = ids.count - 1
      }
    }
    return nil
  }

  /// Returns the value filed under `id`, first filing `value` there if there is none; the
  /// second result tells whether `value` was filed.
  mutating func value<Value: Sendable>(
    for id: UInt64, insertingIfAbsent value: Value
  ) -> (stored: Value, inserted: Bool) {
    if let stored = self.value(for: id, as: Value.self) {
      return (stored, false)
    }
    _ = setValue(value, for: id)
    return (value, true)
  }

  /// Removes the value filed under `id` and returns it, still wrapped, if any.
  mutating func removeValue(for id: UInt64) -> (any Sendable)? {
    guard let position = find(id) else { return nil }
    let removed = typed[position]
    let last = ids.count - 1
    if position != last {
      ids[position] = ids[last]
      typed[position] = typed[last]
      if !positions.isEmpty { positions[ids[position]] = position }
    }
    ids.removeLast()
    typed.removeLast()
    if ids.count > Self.linearSearchLimit {
      positions[id] = nil
    } else {
      positions = [:]
    }
    return removed
  }

  /// The position of the typed value filed under `id`, if any. `mutating` for the reason
  /// given at ``value(at:as:)``.
  @inline(__always)
  mutating func position(of id: UInt64) -> Int? {
    find(id)
  }

  @inline(__always)
  private func find(_ id: UInt64) -> Int? {
    positions.isEmpty ? ids.firstIndex(of: id) : positions[id]
  }

  // MARK: Objects

  /// The identities of the values that are objects themselves: a typed or a named value whose
  /// dynamic type is a class. Objects inside other values (a struct's field, an array's
  /// elements, an optional) are not looked for.
  func objectIdentities() -> [ObjectIdentifier] {
    var found: [ObjectIdentifier] = []
    for stored in typed {
      if let identity = (stored as? any StoredValue)?.objectIdentity { found.append(identity) }
    }
    for value in named.values {
      if let identity = objectIdentity(of: value) { found.append(identity) }
    }
    return found
  }

  // MARK: Named values

  /// The value filed under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    named[name]
  }

  /// Files `value` under `name` and returns the value it replaces, if any.
  mutating func setValue(_ value: any Sendable, named name: String) -> (any Sendable)? {
    named.updateValue(value, forKey: name)
  }

  /// Removes the value filed under `name` and returns it, if any.
  mutating func removeValue(named name: String) -> (any Sendable)? {
    named.removeValue(forKey: name)
  }
}

/// The identity of `value` when it is an object (its dynamic type is a class), else `nil`.
func objectIdentity(of value: Any) -> ObjectIdentifier? {
  guard type(of: value) is AnyObject.Type else { return nil }
  return ObjectIdentifier(value as AnyObject)
}

/// A stored typed value, seen without its static type.
protocol StoredValue {
  /// The identity of the value when it is an object, else `nil`.
  var objectIdentity: ObjectIdentifier? { get }
}

extension Typed: StoredValue {
  var objectIdentity: ObjectIdentifier? {
    TinyContext.objectIdentity(of: value)
  }
}

/// A typed value as stored: wrapped, so that its exact static type survives the trip through
/// `any Sendable` (which would otherwise flatten an existential `Value` into its contents).
struct Typed<Value: Sendable>: Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// The value inside `stored`, which must hold a `Typed<Value>`.
  ///
  /// Only a key of type `Value` files values under its identity, so the stored value is always
  /// a `Typed<Value>`; debug builds check it. Opening the existential and reading the field in
  /// place avoids a dynamic cast, which measured about 60 ns here, against a few for this.
  @inline(__always)
  static func unwrap(_ stored: any Sendable) -> Value {
    read(stored)
  }

  @inline(__always)
  private static func read<Stored>(_ stored: Stored) -> Value {
    assert(Stored.self == Typed<Value>.self, "a \(Stored.self) filed under a \(Value.self) key")
    // A struct with a single stored property has that property's layout.
    return unsafeBitCast(stored, to: Value.self)
  }
}
