// The hand-written floor of TinyWaiting's chain benchmarks, shared by the benchmark suite and
// `WaitingInstructions`.

import Synchronization

/// The promise one writes by hand around a `Mutex`: pending with a list of callbacks, or
/// resolved with a `Result`. `whenResolved` runs its callback at once when the promise is
/// resolved, else keeps it; `resolve` takes the callbacks out of the lock and calls them, in
/// registration order, after unlocking; `map` and `then` register a callback that resolves the
/// next promise. It has none of `Promise`'s other guarantees: a long chain resolves and frees
/// as nested calls, and a value is released wherever its last reference goes.
///
/// Inlinable, so that a caller in another module runs it as if it were its own code.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
public final class MutexPromise<Value: Sendable>: Sendable {
  public typealias Callback = @Sendable (Result<Value, any Error>) -> Void

  @usableFromInline enum State {
    case pending([Callback])
    case resolved(Result<Value, any Error>)
  }

  @usableFromInline let state: Mutex<State>

  /// A pending promise.
  @inlinable public init() {
    state = Mutex(.pending([]))
  }

  /// A promise fulfilled with `value`.
  @inlinable public init(value: Value) {
    state = Mutex(.resolved(.success(value)))
  }

  /// Resolves the promise unless it is resolved already, then calls the callbacks it kept.
  @inlinable public func resolve(_ result: Result<Value, any Error>) {
    let callbacks = state.withLock { state -> [Callback] in
      guard case .pending(let callbacks) = state else { return [] }
      state = .resolved(result)
      return callbacks
    }
    for callback in callbacks { callback(result) }
  }

  /// Calls `callback` with the resolution: at once when the promise is resolved, else when it
  /// resolves.
  @inlinable public func whenResolved(_ callback: @escaping Callback) {
    let result = state.withLock { state -> Result<Value, any Error>? in
      switch state {
      case .resolved(let result):
        return result
      case .pending(var callbacks):
        state = .pending([])  // so that the append below does not copy the array
        callbacks.append(callback)
        state = .pending(callbacks)
        return nil
      }
    }
    if let result { callback(result) }
  }

  /// A promise for the value `transform` makes from this one's.
  @inlinable public func map<New: Sendable>(
    _ transform: @escaping @Sendable (Value) throws -> New
  ) -> MutexPromise<New> {
    let mapped = MutexPromise<New>()
    whenResolved { result in
      mapped.resolve(result.flatMap { value in Result { try transform(value) } })
    }
    return mapped
  }

  /// A promise for the outcome of the step `next` starts with this one's value.
  @inlinable public func then<New: Sendable>(
    _ next: @escaping @Sendable (Value) throws -> MutexPromise<New>
  ) -> MutexPromise<New> {
    let chained = MutexPromise<New>()
    whenResolved { result in
      switch result {
      case .success(let value):
        do {
          try next(value).whenResolved { chained.resolve($0) }
        } catch {
          chained.resolve(.failure(error))
        }
      case .failure(let error):
        chained.resolve(.failure(error))
      }
    }
    return chained
  }
}
