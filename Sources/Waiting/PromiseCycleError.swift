/// The error a promise is rejected with when it would otherwise wait for itself forever.
///
/// Two waits can never end, so instead of hanging silently the promise is rejected with this
/// error (as JavaScript rejects such a promise with a `TypeError`):
///
/// - a ``Promise/then(_:)`` step that returns the very promise `then` returned, which would
///   resolve as it resolves;
/// - an operation given to ``Promise/init(operation:)`` that awaits ``Promise/value`` (or
///   ``Promise/value(timeout:clock:)``) of the promise it is resolving, which would wait for its
///   own end.
///
/// Longer cycles (a step that returns a promise that itself waits for the promise `then`
/// returned) are not detected: like any promise that is never resolved, they stay pending.
///
/// ```swift
/// let looping = Promise<Int>()
/// var cycle: Promise<Int>!
/// cycle = looping.then { _ in cycle }     // the step returns the promise `then` returned
/// looping.fulfill(1)
/// cycle.result                        // failure(PromiseCycleError())
/// ```
public struct PromiseCycleError: Error, Equatable, CustomStringConvertible {
  /// Creates the error.
  public init() {}

  /// A description naming the cycle.
  public var description: String {
    "PromiseCycleError: a promise was resolved with itself (a `then` step returned the promise "
      + "`then` made, or an operation awaited the promise it resolves)"
  }
}
