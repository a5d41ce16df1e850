// The hand-written floor of TinyObservation's set benchmarks, shared by the benchmark suite and
// `ObservationInstructions`.

import Synchronization

/// The hand-written floor: a value and an array of `(old, new)` closures behind one `Mutex`;
/// `set` swaps the value, copies the array under the lock and calls each closure outside it.
///
/// Inlinable, so that a caller in another module runs it as if it were its own code.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class LockAndClosures: Sendable {
  @usableFromInline struct State {
    @usableFromInline var value = 0
    @usableFromInline var handlers: [@Sendable (Int, Int) -> Void] = []

    @inlinable init() {}
  }
  @usableFromInline let state = Mutex(State())

  /// A floor with no handler.
  @inlinable public init() {}

  /// Adds a handler, called with the old and the new value after each set.
  @inlinable public func add(_ handler: @escaping @Sendable (Int, Int) -> Void) {
    state.withLock { $0.handlers.append(handler) }
  }

  /// Replaces the value and calls every handler, outside the lock.
  @inlinable public func set(_ value: Int) {
    let (old, handlers) = state.withLock { state in
      defer { state.value = value }
      return (state.value, state.handlers)
    }
    for handler in handlers {
      handler(old, value)
    }
  }
}
