import Foundation
import TinyEnvironment
import TinyTestSupport

// The kinds of code that sleep on the world's clock, written as an app writes them: each reads
// `Current.clock` and never knows whether it is real.

/// Calls `operation` up to `attempts` times, sleeping 1 s, 2 s, 4 s, … between failed tries,
/// and returns the first success or the last error.
func retrying<Value: Sendable>(
  attempts: Int, _ operation: @Sendable () async throws -> Value
) async throws -> Value {
  var backoff = Duration.seconds(1)
  for _ in 1..<attempts {
    do {
      return try await operation()
    } catch {
      // timing: virtual time, which only the test moves
      try await Current.clock.sleep(for: backoff)
      backoff *= 2
    }
  }
  return try await operation()
}

/// Calls `fetch` at once and then every `interval`, until the task is cancelled.
func polling(every interval: Duration, _ fetch: @Sendable () async -> Void) async {
  while !Task.isCancelled {
    await fetch()
    // timing: virtual time, which only the test moves
    do { try await Current.clock.sleep(for: interval) } catch { return }
  }
}

/// The error of an operation that took longer than its time limit.
struct TimeoutError: Error, Equatable {}

/// Runs `operation`, and throws `TimeoutError` (cancelling it) if it takes longer than `limit`
/// on the world's clock.
func withTimeout<Value: Sendable>(
  _ limit: Duration, _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  try await withThrowingTaskGroup(of: Value.self) { group in
    group.addTask { try await operation() }
    group.addTask {
      // timing: virtual time, which only the test moves
      try await Current.clock.sleep(for: limit)
      throw TimeoutError()
    }
    defer { group.cancelAll() }
    return try await group.next()!
  }
}

/// A search field, as an app's main-actor model writes one: it searches for the latest query
/// once no new query arrived for 300 ms, each query cancelling the previous one's wait.
@MainActor final class SearchField {
  private var pending: Task<Void, Never>?
  private(set) var searches: [String] = []

  func queryChanged(_ query: String) {
    pending?.cancel()
    pending = Task {
      // timing: virtual time, which only the test moves
      do { try await Current.clock.sleep(for: .milliseconds(300)) } catch { return }
      searches.append(query)
    }
  }
}

/// A main-actor model that refreshes at once and then once a second, as an app writes one.
@MainActor final class Dashboard {
  private(set) var refreshes = 0
  /// What a test counts on the main actor besides.
  private(set) var counted = 0

  func count() { counted += 1 }

  func start() -> Task<Void, Never> {
    Task {
      while !Task.isCancelled {
        refreshes += 1
        // timing: virtual time, which only the test moves
        do { try await Current.clock.sleep(for: .seconds(1)) } catch { return }
      }
    }
  }
}
