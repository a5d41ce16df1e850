import TinyInternals

/// A value in an object of its own, never changed once made: copies of the box share the
/// object, so copying one counts one reference whatever the value holds.
///
/// As the object goes away, its `deinit` moves the value out and releases it through the
/// trampoline: a value may hold another box, whose value holds another, and so on (a world's
/// `date` that wraps the previous world's `date`), and such a chain is freed one box after
/// another, not one inside the other. The value is kept in `ManagedBuffer`'s elements, which
/// the `deinit` can move out, because a stored property is destroyed only after `deinit`.
struct ImmutableBox<Value: Sendable>: @unchecked Sendable {
  // @unchecked: the value is written once, before the object is shared, and then only read
  // until the object goes away (`ManagedBuffer`, which holds it, is never `Sendable`).

  /// The value in one allocation, after the object's (empty) header.
  private final class Storage: ManagedBuffer<Void, Value> {
    deinit {
      Trampoline.release(withUnsafeMutablePointerToElements { $0.move() })
    }
  }

  private let storage: Storage

  /// Moves `value` into a new object.
  init(_ value: consuming Value) {
    storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in }, to: Storage.self)
    storage.withUnsafeMutablePointerToElements { [value = consume value] in
      $0.initialize(to: value)
    }
  }

  /// The value.
  var value: Value {
    storage.withUnsafeMutablePointerToElements { $0.pointee }
  }

  /// What `part` takes from the value, read where it is stored: `read { $0.date }` copies one
  /// field of a world, where `value.date` may copy all of them first.
  func read<Part>(_ part: (borrowing Value) -> Part) -> Part {
    storage.withUnsafeMutablePointerToElements { part($0.pointee) }
  }
}
