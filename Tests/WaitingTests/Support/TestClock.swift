import TinyInternals
import TinyTestSupport

/// A clock that stands still until the test moves it: ``advance(by:)`` wakes the sleepers whose
/// deadline it reaches. A cancelled sleep throws `CancellationError` and leaves the clock.
final class TestClock: Clock, Sendable {
  struct Instant: InstantProtocol {
    /// The time since the clock was made.
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [UInt64: (deadline: Instant, wake: CheckedContinuation<Void, any Error>)] = [:]
    var nextID: UInt64 = 0
    /// Gates to open once that many sleepers are waiting.
    var watches: [(count: Int, gate: Gate)] = []
  }

  private let state = Locked(State())

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  /// The number of sleeps waiting for the clock.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// The number of sleeps started on the clock, ended or not.
  var sleepCount: Int { state.withLock { Int($0.nextID) } }

  // bounded: the clock's own sleep, which ends at `advance(by:)` or cancellation
  func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { wake in
        let (isDue, opened) = state.withLock { state -> (Bool, [Gate]) in
          if deadline <= state.now { return (true, []) }
          state.sleepers[id] = (deadline, wake)
          let opened = state.watches.filter { $0.count <= state.sleepers.count }.map(\.gate)
          state.watches.removeAll { $0.count <= state.sleepers.count }
          return (false, opened)
        }
        if isDue { return wake.resume() }
        opened.forEach { $0.open() }
        if Task.isCancelled { cancel(id) }
      }
    } onCancel: {
      cancel(id)
    }
  }

  /// Moves the clock forward by `duration` and wakes the sleepers it reaches.
  func advance(by duration: Duration) {
    let due = state.withLock { state in
      state.now = state.now.advanced(by: duration)
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
      for id in due.keys { state.sleepers[id] = nil }
      return due.values.map(\.wake)
    }
    due.forEach { $0.resume() }
  }

  /// Returns once `count` sleepers wait for the clock (at most ``helperTimeout``).
  func sleepers(_ count: Int) async {
    let gate = Gate()
    let isDone = state.withLock { state in
      if state.sleepers.count >= count { return true }
      state.watches.append((count, gate))
      return false
    }
    if !isDone { await gate.opened() }
  }

  private func cancel(_ id: UInt64) {
    state.withLock { $0.sleepers.removeValue(forKey: id) }?.wake.resume(
      throwing: CancellationError())
  }
}
