/// Where a value is filed in a context: under a typed key's identity, or under a name from the
/// string-keyed subscript. The two never meet, even when a key's name equals a string.
enum EntryKey: Hashable {
  case typed(UInt64)
  case named(String)
}

/// A stored value. Values are boxed so that a typed read is a pointer cast (the key's type
/// guarantees the box's type) instead of a dynamic cast from `any Sendable`, which measured
/// about 60 ns here.
final class ValueBox<Value: Sendable>: Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// The entries of one context: a pure value, kept behind a lock by ``ContextStorage``.
///
/// Small contexts are searched linearly (a few comparisons beat hashing); past
/// `linearSearchLimit` entries a dictionary of positions is kept as well, so every operation
/// stays O(1) expected however many entries a context holds. Removing an entry moves the last
/// one into its place, so the arrays stay dense.
struct ContextValues {
  /// Up to this many entries, a linear search finds an entry; beyond, `positions` does.
  static let linearSearchLimit = 16

  private var keys: [EntryKey] = []
  private var boxes: [AnyObject] = []
  /// Each key's position in `keys` and `boxes`; empty while the context is small.
  private var positions: [EntryKey: Int] = [:]

  /// The number of entries.
  var count: Int { keys.count }

  /// The box filed under `key`, if any.
  func box(for key: EntryKey) -> AnyObject? {
    position(of: key).map { boxes[$0] }
  }

  /// Files `box` under `key` and returns the box it replaces, if any (to be released by the
  /// caller once its lock is released).
  mutating func setBox(_ box: AnyObject, for key: EntryKey) -> AnyObject? {
    if let position = position(of: key) {
      let replaced = boxes[position]
      boxes[position] = box
      return replaced
    }
    append(box, for: key)
    return nil
  }

  /// Files `box` under `key` unless a box is already filed there; returns the box that is
  /// filed under `key` afterwards.
  mutating func insertBox(_ box: AnyObject, ifAbsentFor key: EntryKey) -> AnyObject {
    if let position = position(of: key) {
      return boxes[position]
    }
    append(box, for: key)
    return box
  }

  /// Removes the box filed under `key` and returns it, if any.
  mutating func removeBox(for key: EntryKey) -> AnyObject? {
    guard let position = position(of: key) else { return nil }
    let removed = boxes[position]
    let last = keys.count - 1
    if position != last {
      keys[position] = keys[last]
      boxes[position] = boxes[last]
      if !positions.isEmpty { positions[keys[position]] = position }
    }
    keys.removeLast()
    boxes.removeLast()
    if keys.count > Self.linearSearchLimit {
      positions[key] = nil
    } else {
      positions = [:]
    }
    return removed
  }

  private func position(of key: EntryKey) -> Int? {
    positions.isEmpty ? keys.firstIndex(of: key) : positions[key]
  }

  private mutating func append(_ box: AnyObject, for key: EntryKey) {
    keys.append(key)
    boxes.append(box)
    if keys.count > Self.linearSearchLimit {
      if positions.isEmpty {
        for (position, key) in keys.enumerated() { positions[key] = position }
      } else {
        positions[key] = keys.count - 1
      }
    }
  }
}
