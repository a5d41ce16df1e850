/// The sleepers of a ``ManualClock``, in the order they wake: by deadline, and among sleepers
/// with one deadline, in the order they went to sleep.
///
/// Kept latest first, so that the next to wake is the last element: waking one is O(1), and
/// adding one is a binary search and one move of the elements after it, so that a test with
/// tens of thousands of sleepers on one deadline does not take quadratic time.
struct SleeperQueue: Sendable {
  private var latestFirst: [ManualClock.Sleeper] = []

  /// How many sleepers there are.
  var count: Int { latestFirst.count }

  /// The deadline of the next sleeper to wake, if any.
  var nextDeadline: ManualClock.Instant? { latestFirst.last?.deadline }

  /// Adds `sleeper`, after every sleeper whose deadline is not later than its own.
  mutating func insert(_ sleeper: ManualClock.Sleeper) {
    // Before the sleepers of its own deadline, so that it wakes after them.
    latestFirst.insert(sleeper, at: firstPosition(notLaterThan: sleeper.deadline))
  }

  /// Removes and returns the next sleeper to wake, if any.
  mutating func removeNext() -> ManualClock.Sleeper? {
    latestFirst.popLast()
  }

  /// Removes and returns the sleeper `id`, which sleeps until `deadline`, if it is here.
  mutating func remove(id: UInt64, deadline: ManualClock.Instant) -> ManualClock.Sleeper? {
    var index = firstPosition(notLaterThan: deadline)
    while index < latestFirst.count, latestFirst[index].deadline == deadline {
      if latestFirst[index].id == id { return latestFirst.remove(at: index) }
      index += 1
    }
    return nil
  }

  /// The first position whose deadline is not later than `deadline` (binary search).
  private func firstPosition(notLaterThan deadline: ManualClock.Instant) -> Int {
    var low = 0
    var high = latestFirst.count
    while low < high {
      let middle = low + (high - low) / 2
      if latestFirst[middle].deadline > deadline { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
