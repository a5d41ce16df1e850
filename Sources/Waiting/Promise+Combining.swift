extension Promise {
  /// Returns a promise for the values of all `promises`, in input order, or for the first error
  /// among them.
  ///
  /// The returned promise is fulfilled once every input is fulfilled, with their values in the
  /// order of `promises` (not the order they arrived in), and rejected as soon as any input is
  /// rejected, with that error; later errors are ignored. With no promises it is fulfilled at
  /// once with `[]`. The same promise may appear more than once.
  ///
  /// ```swift
  /// let a = Promise<Int>(), b = Promise<Int>()
  /// let both = Promise.all([a, b])
  /// b.fulfill(2); a.fulfill(1)
  /// both.result                         // success([1, 2])
  /// Promise<Int>.all([]).result         // success([])
  /// ```
  ///
  /// - Parameter promises: The promises to wait for.
  /// - Returns: A promise for every value, in input order.
  /// - Complexity: O(*n*) for *n* promises.
  public static func all(_ promises: [Promise<Value>]) -> Promise<[Value]> {
    if promises.isEmpty { return Promise<[Value]>(value: []) }
    let combined = Promise<[Value]>()
    let collector = Collector<Value>(count: promises.count)
    for (index, promise) in promises.enumerated() {
      promise.whenResolved { result in
        switch result {
        case .success(let value):
          if let values = collector.store(value, at: index) { combined.fulfill(values) }
        case .failure(let error):
          combined.reject(error)
        }
      }
    }
    return combined
  }

  /// Returns a promise that resolves as the first of `promises` to resolve does.
  ///
  /// The first input to be fulfilled or rejected decides the result; the others are ignored
  /// (and not cancelled: a promise has no cancellation). With no promises, the returned promise
  /// never resolves, as JavaScript's `Promise.race([])` never settles.
  ///
  /// ```swift
  /// let slow = Promise<String>(), fast = Promise<String>()
  /// let first = Promise.race([slow, fast])
  /// fast.fulfill("fast"); slow.fulfill("slow")
  /// first.result                        // success("fast")
  /// ```
  ///
  /// - Parameter promises: The competing promises.
  /// - Returns: A promise for the first resolution.
  /// - Complexity: O(*n*) for *n* promises.
  public static func race(_ promises: [Promise<Value>]) -> Promise<Value> {
    let first = Promise<Value>()
    for promise in promises {
      promise.whenResolved { first.resolve(with: $0) }
    }
    return first
  }
}

/// The values ``Promise/all(_:)`` has received so far, in input order.
private final class Collector<Value: Sendable>: Sendable {
  /// The values so far, in input order, and how many are still missing.
  private let state: Locked<(values: [Value?], missing: Int)>

  init(count: Int) {
    state = Locked((Array(repeating: nil, count: count), count))
  }

  /// Stores the value of the input at `index`.
  ///
  /// - Returns: Every value, in input order, when this was the last one missing; else `nil`.
  func store(_ value: Value, at index: Int) -> [Value]? {
    state.withLock { state in
      state.values[index] = value
      state.missing -= 1
      return state.missing == 0 ? state.values.map { $0! } : nil
    }
  }
}
