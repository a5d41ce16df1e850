import TinyInternals

/// A value in an object of its own, written once and then only read in place: copies of the
/// box share the object, so copying one counts one reference whatever the value holds.
///
/// As the object goes away, its `deinit` moves the value out and releases it through the
/// trampoline: a value may hold another box, whose value holds another, and so on (a world's
/// `date` that wraps the previous world's `date`), and such a chain is freed one box after
/// another, not one inside the other. A box made `inline` releases its value in its `deinit`
/// instead: for a value that is itself freed through the trampoline (a world, whose fields are
/// such a box), going through it twice would only nest the second release inside the first,
/// which queues it, at the cost of allocating the queue. The value is kept in `ManagedBuffer`'s
/// elements, after the object's header (whether it is released inline), because a stored
/// property is destroyed only after `deinit`.
struct ImmutableBox<Value: Sendable>: @unchecked Sendable {
  // @unchecked: the value is written once, before the object is shared, and then only read
  // until the object goes away (`ManagedBuffer`, which holds it, is never `Sendable`).

  /// The value in one allocation, after the object's header.
  final class Storage: ManagedBuffer<Bool, Value> {
    deinit {
      if header {
        _ = withUnsafeMutablePointerToElements { $0.move() }
      } else {
        Trampoline.release(withUnsafeMutablePointerToElements { $0.move() })
      }
    }
  }

  /// The object the value is in; whoever borrows the value through ``slot`` holds it for as
  /// long as it does.
  let storage: Storage

  /// Moves `value` into a new object, which releases it through the trampoline or, when
  /// `inline` (see the type's comment), in its `deinit`.
  init(_ value: consuming Value, inline: Bool = false) {
    storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in inline }, to: Storage.self)
    slot.initialize(to: value)
  }

  /// Where the value is, valid while ``storage`` is held.
  var slot: UnsafeMutablePointer<Value> { storage.withUnsafeMutablePointerToElements { $0 } }

  /// The value, read in place.
  var value: Value {
    _read { yield slot.pointee }
  }
}
