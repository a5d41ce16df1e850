/// The values of one context: a pure value, kept behind a lock by ``ContextStorage``.
///
/// Typed values are boxes filed under their key's identity, named values are filed under their
/// name; the two never meet, even when a key's name equals a string. The first typed value is
/// kept inline, the others in arrays, searched linearly while there are few (a handful of
/// integer comparisons costs less than hashing); past `linearSearchLimit` a dictionary of
/// positions is kept as well, so every operation stays O(1) expected however many values a
/// context holds.
///
/// Operations hand back what they replace or remove, for the caller to release once its lock
/// is released.
struct ContextValues: Sendable {
  /// Up to this many typed values in the arrays, a linear search finds a value; beyond,
  /// `positions` does.
  static let linearSearchLimit = 16

  /// The first typed value, inline: a read of a context that holds one finds it without
  /// reaching the arrays' memory (owner-held read, 100,000 owners).
  private var first: (id: UInt64, box: StoredValue)?
  /// The identities of the other typed values.
  private var ids: [UInt64] = []
  /// The boxes, each at the position of its key's identity in `ids`.
  private var boxes: [StoredValue] = []
  /// Each identity's position in `ids`; empty while there are few typed values.
  private var positions: [UInt64: Int] = [:]
  private var named: [String: any Sendable] = [:]

  /// The number of values, typed and named.
  var count: Int { (first == nil ? 0 : 1) + ids.count + named.count }

  // MARK: Typed values

  /// The box filed under the key identity `id`, if any.
  func box(for id: UInt64) -> StoredValue? {
    if let first, first.id == id { return first.box }
    return position(of: id).map { boxes[$0] }
  }

  /// Files `box` under `id`, or with `nil` removes what is filed there; returns the box it
  /// replaced or removed.
  mutating func setBox(_ box: StoredValue?, for id: UInt64) -> StoredValue? {
    if let current = first, current.id == id {
      first = box.map { (id, $0) }
      return current.box
    }
    guard let position = position(of: id) else {
      if let box { append(box, for: id) }
      return nil
    }
    let replaced = boxes[position]
    if let box {
      boxes[position] = box
    } else {
      remove(at: position)
    }
    return replaced
  }

  /// The box filed under `id`, first filing `box` there if nothing is.
  mutating func box(for id: UInt64, insertingIfAbsent box: StoredValue) -> StoredValue {
    if let stored = self.box(for: id) { return stored }
    append(box, for: id)
    return box
  }

  private func position(of id: UInt64) -> Int? {
    positions.isEmpty ? ids.firstIndex(of: id) : positions[id]
  }

  /// Files `box` under `id`, which has no value: inline when that place is free.
  private mutating func append(_ box: StoredValue, for id: UInt64) {
    if first == nil { return first = (id, box) }
    ids.append(id)
    boxes.append(box)
    guard ids.count > Self.linearSearchLimit else { return }
    if positions.isEmpty {
      for (position, id) in ids.enumerated() { positions[id] = position }
    } else {
      positions[id] = ids.count - 1
    }
  }

  /// Removes the value at `position` of the arrays, moving the last one into its place so the
  /// arrays stay dense. The caller holds the removed box.
  private mutating func remove(at position: Int) {
    let id = ids[position]
    let last = ids.count - 1
    ids.swapAt(position, last)
    boxes.swapAt(position, last)
    ids.removeLast()
    boxes.removeLast()
    if ids.count <= Self.linearSearchLimit {
      positions = [:]
    } else {
      positions[id] = nil
      if position < last { positions[ids[position]] = position }
    }
  }

  // MARK: Named values

  /// The value filed under `name`, if any.
  func value(named name: String) -> (any Sendable)? {
    named[name]
  }

  /// Files `value` under `name`, or with `nil` removes what is filed there; returns the value
  /// it replaced or removed.
  mutating func setValue(_ value: (any Sendable)?, named name: String) -> (any Sendable)? {
    guard let value else { return named.removeValue(forKey: name) }
    return named.updateValue(value, forKey: name)
  }

  // MARK: Objects

  /// The identities of the values that are objects themselves: a typed or a named value whose
  /// dynamic type is a class. Objects inside other values (a struct's field, an array's
  /// elements, an optional) are not looked for.
  func objectIdentities() -> [ObjectIdentifier] {
    let boxes = (first.map { [$0.box] } ?? []) + boxes
    return boxes.compactMap(\.objectIdentity) + named.values.compactMap(objectIdentity(of:))
  }
}

/// The identity of `value` when it is an object (its dynamic type is a class), else `nil`.
func objectIdentity(of value: Any) -> ObjectIdentifier? {
  guard type(of: value) is AnyObject.Type else { return nil }
  return ObjectIdentifier(value as AnyObject)
}

/// A typed value in its box: what a context holds for a key. The base class lets a context
/// hold boxes of every type in one array.
class StoredValue: @unchecked Sendable {
  // @unchecked: it has no stored properties; see `TypedBox`.

  /// The value's identity, when it is an object.
  var objectIdentity: ObjectIdentifier? { nil }

  /// The value in this box, made for a key whose value type is `Value`.
  final func value<Value: Sendable>(as _: Value.Type) -> Value {
    // Keys are unique by identity and each key has one value type, so the box filed under a
    // key is a `TypedBox` of that key's type (checked in debug builds).
    unsafeDowncast(self, to: TypedBox<Value>.self).value
  }
}

/// A value boxed under its key's type. The key's type is the value's static type, so a read
/// knows the box's type from the key and takes the value out without a dynamic cast; the box
/// keeps an existential or optional value exactly as it was stored (`ContextKey<any Sendable>`
/// holding an `Int` reads back as that existential, not flattened). A box never changes: a
/// write files a new box, so a reader may hold one after the lock.
final class TypedBox<Value: Sendable>: StoredValue, @unchecked Sendable {
  // @unchecked: `value` is immutable and `Sendable`.
  let value: Value

  init(_ value: Value) {
    self.value = value
  }

  override var objectIdentity: ObjectIdentifier? {
    TinyContext.objectIdentity(of: value)
  }
}
