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

  var ids: [UInt64] = []
  /// `TypedBox<Value>`es, each at the position of its key's identity in `ids`.
  var typed: [StoredValue] = []
  /// Each identity's position in `ids`; empty while there are few typed values.
  var positions: [UInt64: Int] = [:]
  private var named: [String: any Sendable] = [:]

  /// The number of values, typed and named.
  var count: Int { ids.count + named.count }

  // MARK: Typed values

  /// The value filed under the key identity `id`, whose key's type is `Value`.
  func value<Value: Sendable>(for id: UInt64, as _: Value.Type) -> Value? {
    guard let position = find(id) else { return nil }
    return TypedBox<Value>.unwrap(typed[position])
  }

  /// The typed value at `position` (from ``position(of:)``), whose key's type is `Value`.
  ///
  /// `mutating` though it changes nothing: the caller then reads the values in place instead
  /// of copying the arrays out of its class first (which measured four retain/release pairs).
  @inline(__always)
  mutating func value<Value: Sendable>(at position: Int, as _: Value.Type) -> Value {
    typed.withUnsafeBufferPointer { TypedBox<Value>.unwrap($0[position]) }
  }

  /// Stores `value` under `id`. When a value is stored there in a box that only this table
  /// references, the box keeps its place and `value` comes back holding the value it replaced;
  /// otherwise the value goes in a new box and the box it replaced, if any, is returned. Either
  /// way, what was replaced is the caller's to release, after unlocking.
  mutating func setValue<Value: Sendable>(
    _ value: inout Value, for id: UInt64
  ) -> StoredValue? {
    if let position = find(id), isKnownUniquelyReferenced(&typed[position]) {
      swap(&unsafeDowncast(typed[position], to: TypedBox<Value>.self).value, &value)
      return nil
    }
    return setValue(TypedBox(value), for: id)
  }

  /// Files `box` under the key identity `id`; returns the box it replaces, for the caller to
  /// release after its lock.
  mutating func setValue(_ box: StoredValue, for id: UInt64) -> StoredValue? {
    if let position = find(id) {
      defer { typed[position] = box }
      return typed[position]
    }
    ids.append(id)
    typed.append(box)
    if ids.count > Self.linearSearchLimit {
      if positions.isEmpty {
        for (position, id) in ids.enumerated() { positions[id] = position }
      } else {
        positions[id] = ids.count - 1
      }
    }
    return nil
  }

  /// The value filed under `id`, first filing `box` there if nothing is; `inserted` tells
  /// whether `box` was filed.
  mutating func value<Value: Sendable>(
    for id: UInt64, insertingIfAbsent box: TypedBox<Value>
  ) -> (stored: Value, inserted: Bool) {
    if let stored = self.value(for: id, as: Value.self) {
      return (stored, false)
    }
    _ = setValue(box, for: id)
    return (box.value, true)
  }

  /// Removes the value filed under `id`; returns its box, for the caller to release after its
  /// lock.
  mutating func removeValue(for id: UInt64) -> StoredValue? {
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
  func find(_ id: UInt64) -> Int? {
    positions.isEmpty ? ids.firstIndex(of: id) : positions[id]
  }

  // MARK: Objects

  /// The identities of the values that are objects themselves: a typed or a named value whose
  /// dynamic type is a class. Objects inside other values (a struct's field, an array's
  /// elements, an optional) are not looked for.
  func objectIdentities() -> [ObjectIdentifier] {
    var found: [ObjectIdentifier] = []
    for stored in typed {
      if let identity = stored.objectIdentity { found.append(identity) }
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

/// A typed value in its box: what a context holds for a ``ContextKey``. A class, not a
/// protocol, so that a write can ask whether the table holds the box's only reference (asking
/// through an existential copies the reference first).
class StoredValue: @unchecked Sendable {
  // @unchecked: it has no stored properties; see `TypedBox`.

  /// The value's identity, when it is an object.
  var objectIdentity: ObjectIdentifier? { nil }
}

/// A value boxed under its key's type. The key's type is the value's static type, so a read
/// knows the box's type from the key and takes the value out without a dynamic cast; the box
/// keeps an existential or optional value exactly as it was stored (`ContextKey<any Sendable>`
/// holding an `Int` reads back as that existential, not flattened).
final class TypedBox<Value: Sendable>: StoredValue, @unchecked Sendable {
  // @unchecked: `value` changes only under its table's lock, while the table holds the only
  // reference to the box; every other access reads it under that lock or after removing it.
  var value: Value

  init(_ value: Value) {
    self.value = value
  }

  override var objectIdentity: ObjectIdentifier? {
    TinyContext.objectIdentity(of: value)
  }

  /// The value in `stored`, a box made for a key whose value type is `Value`.
  @inline(__always)
  static func unwrap(_ stored: StoredValue) -> Value {
    // Keys are unique by identity and each key has one value type, so the box filed under a
    // key is a `TypedBox` of that key's type (checked in debug builds).
    unsafeDowncast(stored, to: TypedBox<Value>.self).value
  }
}
