/// Runs `operation`, and throws ``TimeoutError`` if `clock` passes `timeout` first.
///
/// The operation runs in a child task, beside a timer that sleeps on `clock`. Whichever ends
/// first decides, and the other is cancelled:
///
/// - When the operation returns or throws first, its value is returned or its error rethrown,
///   and the timer's sleep is cancelled: no sleeper is left on the clock (a manual clock in a
///   test has none once this returns).
/// - When the clock passes the timeout first, the operation is cancelled and ``TimeoutError``
///   is thrown once the operation has ended: like any child task, it is cancelled, not killed,
///   so an operation that ignores cancellation delays the error until it returns.
/// - When the calling task is cancelled, both are cancelled, and the operation's outcome (most
///   often `CancellationError`) is what this returns or throws.
///
/// A `timeout` of zero or less has passed already: `TimeoutError` is thrown at once, and the
/// operation does not run. One longer than 100 years counts as 100 years.
///
/// ```swift
/// let user = try await withTimeout(.seconds(5), clock: Current.clock) { try await api.user() }
/// ```
///
/// - Parameters:
///   - timeout: How long the operation may take.
///   - clock: The clock that measures the timeout: any clock whose durations are `Duration`,
///     such as `ContinuousClock`, a manual clock in tests, or an `any Clock<Duration>` such as
///     `Current.clock` or one a type stores (`let clock: any Clock<Duration>`, passed by its
///     bare name). The continuous clock by default.
///   - operation: The work to run.
/// - Returns: What the operation returns.
/// - Throws: ``TimeoutError`` when the timeout passes first; else the operation's error.
public func withTimeout<Value: Sendable>(
  _ timeout: Duration, clock: any Clock<Duration> = ContinuousClock(),
  operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  // An `any Clock<Duration>` parameter, not a generic one: a stored `clock` passed by its bare
  // name in a file that imports Foundation also names Glibc's `clock()`, and the generic form
  // then fails to open the existential. Passing it on opens it.
  try await race(operation, against: timeout, on: clock)
}

/// ``withTimeout(_:clock:operation:)`` on the clock's own type.
private func race<Value: Sendable>(
  _ operation: @escaping @Sendable () async throws -> Value, against timeout: Duration,
  on clock: some Clock<Duration>
) async throws -> Value {
  guard timeout > .zero else { throw TimeoutError(timeout: timeout) }
  // The standard clocks trap when asked to sleep past about 292 years.
  let deadline = clock.now.advanced(by: Swift.min(timeout, longestTimeout))
  return try await withThrowingTaskGroup(of: Outcome<Value>.self) { group in
    group.addTask { .finished(try await operation()) }
    group.addTask {
      // A clock's sleep throws when it is cancelled before the deadline: no timeout then.
      do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return .stopped }
      return .timedOut
    }
    defer { group.cancelAll() }
    // The operation always ends with a value or an error, so the loop returns or throws.
    while let outcome = try await group.next() {
      switch outcome {
      case .finished(let value): return value
      case .timedOut: throw TimeoutError(timeout: timeout)
      case .stopped: continue
      }
    }
    throw CancellationError()
  }
}

/// The longest time ``withTimeout(_:clock:operation:)`` waits: 100 years.
private let longestTimeout = Duration.seconds(100 * 365 * 24 * 3_600)

/// How a child task of ``withTimeout(_:clock:operation:)`` ended.
private enum Outcome<Value: Sendable>: Sendable {
  /// The operation returned this value.
  case finished(Value)
  /// The timer's clock passed the timeout.
  case timedOut
  /// The timer was cancelled before the timeout.
  case stopped
}

/// The error thrown when a clock passes a timeout before the awaited work ends.
///
/// ``withTimeout(_:clock:operation:)`` and ``Promise/value(timeout:clock:)`` throw it. Two
/// timeout errors are equal when their timeouts are.
///
/// ```swift
/// do {
///   let user = try await withTimeout(.seconds(5)) { try await api.user() }
/// } catch let error as TimeoutError {
///   print(error)                        // TimeoutError: the work took longer than 5.0 seconds
/// }
/// ```
public struct TimeoutError: Error, Equatable, CustomStringConvertible {
  /// The timeout that passed.
  public let timeout: Duration

  /// Creates the error for `timeout`.
  ///
  /// - Parameter timeout: The timeout that passed.
  public init(timeout: Duration) {
    self.timeout = timeout
  }

  /// A description naming the timeout.
  public var description: String {
    "TimeoutError: the work took longer than \(timeout)"
  }
}
