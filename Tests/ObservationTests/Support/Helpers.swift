import Dispatch
import Foundation
import TinyTestSupport

@testable import TinyObservation
import TinyInternals

/// The identity of the calling thread (call it from synchronous code).
func currentThread() -> ObjectIdentifier {
  ObjectIdentifier(Thread.current)
}

/// An error for throwing bodies and failing commits.
struct Oops: Error, Equatable {
  let code: Int
}

/// An object whose deallocation tests observe through a weak reference.
final class Owner: Sendable {
  let name: String

  init(_ name: String = "owner") {
    self.name = name
  }
}

/// A value that runs an action when its last copy is released (its `deinit` is user code that
/// may call back into whatever released it). Copies are equal when their `id`s are.
struct Probe: Equatable, Sendable {
  let id: Int
  private let onDeinit: OnDeinit?

  init(_ id: Int, onDeinit: (@Sendable () -> Void)? = nil) {
    self.id = id
    self.onDeinit = onDeinit.map(OnDeinit.init)
  }

  static func == (lhs: Probe, rhs: Probe) -> Bool {
    lhs.id == rhs.id
  }
}

/// A value whose `==` runs `onCompare` first (user code that may call back into the caller).
struct Compared: Equatable, Sendable {
  let id: Int
  let onCompare: @Sendable () -> Void

  init(_ id: Int, onCompare: @escaping @Sendable () -> Void = {}) {
    self.id = id
    self.onCompare = onCompare
  }

  static func == (lhs: Compared, rhs: Compared) -> Bool {
    lhs.onCompare()
    return lhs.id == rhs.id
  }
}

/// Holds a reference that is set after the object that uses it was made (for closures that
/// must reach the atom they are part of).
final class Later<Object: AnyObject & Sendable>: Sendable {
  private let object = Locked<Object?>(nil)

  init() {}

  /// The object, once set.
  var value: Object? {
    get { object.withLock { $0 } }
    set { object.withLock { $0 = newValue } }
  }
}

/// Says yes once: to the first caller of ``first()``, from any thread.
final class Once: Sendable {
  private let taken = Locked(false)

  init() {}

  /// Whether this is the first call.
  func first() -> Bool {
    taken.withLock { taken in
      defer { taken = true }
      return !taken
    }
  }
}

/// A switch that starts off and is turned on once, from any thread.
final class Switch: Sendable {
  private let on = Locked(false)

  init() {}

  /// Whether ``turnOn()`` was called.
  var isArmed: Bool { on.withLock { $0 } }

  /// Turns the switch on.
  func turnOn() {
    on.withLock { $0 = true }
  }
}
