import TinyInternals

extension Promise {
  /// Returns a promise for the values of all `promises`, in input order, or for the first error
  /// among them.
  ///
  /// The returned promise is fulfilled once every input is fulfilled, with their values in the
  /// order of `promises` (not the order they arrived in), and rejected as soon as any input is
  /// rejected, with the error of the input that was rejected first; later errors are ignored.
  /// "First" is the order in which the inputs were rejected, as with ``race(_:)``: when one
  /// input is rejected inside another's callbacks (a promise made from another with
  /// ``recover(_:)`` that throws, say), the earlier rejection still wins. When an input is
  /// already rejected, or every input already fulfilled, the returned promise is resolved at
  /// once. With no promises it is fulfilled at once with `[]`. The same promise may appear more than once. The returned
  /// promise holds its inputs weakly: it keeps none of them alive.
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
    // Decided already when an input is rejected (any input still pending is rejected later),
    // or when every input is fulfilled.
    let inputs = CombinatorInputs(promises)
    if let rejected = inputs.firstResolution(rejectionsOnly: true) {
      return Promise<[Value]>(resolved: rejected)
    }
    var values: [Value] = []
    for promise in promises {
      guard case .value(let box)? = promise.resolution else { break }
      values.append(box.value as! Value)
    }
    if values.count == promises.count { return Promise<[Value]>(value: values) }
    let collector = Collector(inputs, count: promises.count)
    for (index, promise) in promises.enumerated() {
      promise.onResolution { collector.receive($0, at: index) }
    }
    return collector.combined
  }

  /// Returns a promise that resolves as the first of `promises` to resolve does.
  ///
  /// The input that was fulfilled or rejected first decides the result; the others are ignored
  /// (and not cancelled: a promise has no cancellation). "First" is the order in which the
  /// inputs resolved, not the order in which their callbacks ran: when one input resolves
  /// inside another's callbacks (a promise made from another with ``map(_:)``, or resolved
  /// by one of its callbacks), or when several resolve at once on different threads, the one
  /// that resolved first still wins. When an input is already resolved, the returned promise
  /// is resolved at once, as the input that resolved first (inputs still pending resolve later);
  /// the same promise may appear more than once. With no
  /// promises, the returned promise never resolves, as JavaScript's `Promise.race([])` never
  /// settles (awaiting it ends only when the awaiting task is cancelled).
  ///
  /// ```swift
  /// let slow = Promise<String>(), fast = Promise<String>()
  /// let first = Promise.race([slow, fast])
  /// fast.fulfill("fast"); slow.fulfill("slow")
  /// first.result                        // success("fast")
  ///
  /// let source = Promise<Int>()
  /// let tenfold = source.map { $0 * 10 }
  /// let winner = Promise.race([tenfold, source])
  /// source.fulfill(1)
  /// winner.result                       // success(1): `source` resolved before `tenfold`
  /// ```
  ///
  /// The returned promise holds its inputs weakly: it keeps none of them alive.
  ///
  /// - Parameter promises: The competing promises.
  /// - Returns: A promise for the first resolution.
  /// - Complexity: O(*n*) for *n* promises.
  public static func race(_ promises: [Promise<Value>]) -> Promise<Value> {
    guard !promises.isEmpty else { return Promise() }
    let inputs = CombinatorInputs(promises)
    // Decided already when an input is resolved: any input still pending resolves later.
    if let resolved = inputs.firstResolution(rejectionsOnly: false) {
      return Promise(resolved: resolved)
    }
    let first = Promise<Value>()
    for (index, promise) in promises.enumerated() {
      promise.onResolution { resolution in
        inputs.report(resolution, at: index)
        guard inputs.claim() else { return }
        first.settle(inputs.firstResolution(rejectionsOnly: false) ?? resolution)
      }
    }
    return first
  }
}

/// The inputs of a combinator, held weakly, whether the combinator has decided, and the
/// earliest resolution its callbacks have reported.
final class CombinatorInputs<Value: Sendable>: Sendable {
  /// A weak reference to one input.
  struct Input: Sendable {
    weak var promise: Promise<Value>?
  }

  /// The inputs, in input order. Weak, so that a combinator whose inputs are dropped while
  /// pending (its callbacks hold this object) is freed with them.
  let inputs: [Input]
  /// Whether a callback has taken the decision.
  private let isClaimed = Locked(false)
  /// The reported resolution with the earliest stamp (see ``report(_:at:)``).
  private let earliestReported = Locked<(stamp: UInt64, resolution: Resolution)?>(nil)

  init(_ promises: [Promise<Value>]) {
    inputs = promises.map { Input(promise: $0) }
  }

  /// Takes the decision: `true` for the first caller only.
  func claim() -> Bool {
    isClaimed.withLock { isClaimed in
      defer { isClaimed = true }
      return !isClaimed
    }
  }

  /// Records that the input at `index` resolved with `result`: its callback calls this first,
  /// before it tries to ``claim()`` the decision, with the candidates of the combinator only
  /// (every resolution for `race`, rejections for `all`).
  ///
  /// An input may resolve, run its callbacks and be dropped while another input's callback is
  /// between its claim and ``firstResolution(where:)``: the input is gone by then, but its
  /// report is here.
  func report(_ resolution: Resolution, at index: Int) {
    // The input is alive: a resolving promise is held until its callbacks have run.
    guard let promise = inputs[index].promise else { return }
    let stamp = promise.state.withLock { $0.stamp }
    let replaced = earliestReported.withLock { earliest -> (UInt64, Resolution)? in
      if let current = earliest, current.stamp <= stamp { return nil }
      defer { earliest = (stamp, resolution) }
      return earliest
    }
    _ = replaced  // released here, after the lock: it may hold a value of the user's
  }

  /// The resolution of the input that resolved first, among the rejected ones only when
  /// `rejectionsOnly`; `nil` when none is resolved yet.
  ///
  /// Called from an input's callback, after that callback's ``report(_:at:)`` and ``claim()``,
  /// so after that input resolved, this finds the candidate that resolved first, ever: an
  /// input still pending here takes its stamp after this call looked at it, so after the stamp
  /// of the input whose callback is running. An input that is gone either was dropped before
  /// resolving, and can never resolve, or resolved and ran its callbacks, which reported it
  /// before it went: so the reports are read after the inputs.
  func firstResolution(rejectionsOnly: Bool) -> Resolution? {
    var first: (stamp: UInt64, promise: Promise<Value>)?
    for input in inputs {
      guard let promise = input.promise else { continue }
      let stamp = promise.state.withLock { state -> UInt64? in
        switch state.resolution {
        case nil: nil
        case .value?: rejectionsOnly ? nil : state.stamp
        case .rejected?: state.stamp
        }
      }
      if let stamp, stamp < first?.stamp ?? .max { first = (stamp, promise) }
    }
    let reported = earliestReported.withLock { $0 }
    if let reported, reported.stamp < first?.stamp ?? .max { return reported.resolution }
    return first?.promise.resolution
  }
}

/// What ``Promise/all(_:)`` has received so far: the values in input order, how many are still
/// missing, and whether the combined promise is decided.
private final class Collector<Value: Sendable>: Sendable {
  /// The promise for every value.
  let combined = Promise<[Value]>()
  /// The inputs, to find the first rejection.
  private let inputs: CombinatorInputs<Value>
  /// The values so far, in input order, and how many are still missing.
  private let state: Locked<(values: [Value?], missing: Int)>

  init(_ inputs: CombinatorInputs<Value>, count: Int) {
    self.inputs = inputs
    state = Locked((Array(repeating: nil, count: count), count))
  }

  /// Takes the resolution of the input at `index`: stores a value, fulfils the combined
  /// promise once every value is in, or rejects it with the first rejection.
  func receive(_ resolution: Resolution, at index: Int) {
    switch resolution {
    case .value(let box):
      let value = box.value as! Value
      let values = state.withLock { state -> [Value]? in
        state.values[index] = value
        state.missing -= 1
        return state.missing == 0 ? state.values.map { $0! } : nil
      }
      // Every input is fulfilled: no rejection can come.
      if let values, inputs.claim() { combined.settle(.fulfilled(values)) }
    case .rejected:
      inputs.report(resolution, at: index)
      guard inputs.claim() else { return }
      combined.settle(inputs.firstResolution(rejectionsOnly: true) ?? resolution)
    }
  }
}
