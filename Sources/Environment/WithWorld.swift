/// Runs `operation` with ``Current`` replaced by `world`, and returns its result.
///
/// The scope ends when `operation` returns or throws; ``Current`` is then what it was before.
/// Scopes nest: an inner scope hides the outer one until it ends. Inside the scope,
/// assignments to ``Current`` change the scope's own world only. Code that `operation` runs
/// synchronously on the calling thread sees the scope; work it sends to a dispatch queue or
/// another thread reads the global world, so carry the world along:
///
/// ```swift
/// let world = Current
/// queue.async { withWorld(world) { render() } }
/// ```
///
/// Scopes are independent of each other, so tests that each run in their own scope can run in
/// parallel.
///
/// ```swift
/// withWorld(.mock) {
///   Current.date()                      // 2001-01-01 00:00:00 UTC
///   withWorld(.live) { Current.date() } // now
///   Current.date()                      // 2001-01-01 00:00:00 UTC again
/// }
/// ```
///
/// - Parameters:
///   - world: The world ``Current`` is during `operation`.
///   - operation: The work to run in the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws, after the scope has ended.
/// - Complexity: O(1): the scope is one small object holding `world` (one allocation; two on
///   Apple platforms, where the lock has an object of its own), bound to a task local while
///   `operation` runs.
public func withWorld<Output, Failure: Error>(
  _ world: World,
  operation: () throws(Failure) -> Output
) throws(Failure) -> Output {
  do {
    return try Scope.$innermost.withValue(Scope(world), operation: operation)
  } catch {
    // `withValue` rethrows untyped; only `operation`'s error can arrive here.
    throw error as! Failure
  }
}

/// Runs `operation` with ``Current`` replaced by a changed copy of itself, and returns its
/// result.
///
/// `modify` receives a copy of ``Current`` as it is now — the innermost scope's world, with the
/// assignments made in the scope so far, else the global world, whatever that is — and changes
/// it; `operation` then runs in a scope with the changed world, exactly as with
/// `withWorld(_:operation:)`. If `modify` throws, `operation` does not run.
///
/// ```swift
/// withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
///   Current.locale.identifier          // "es_ES"; everything else as it was
/// }
/// ```
///
/// Outside every scope it starts from the global world, which is the live one in an app: the
/// way to render one screen in a customer's locale, say. A test starts from ``World/mock``
/// instead, `withWorld(.mock) { … }` around it, so that nothing it changes reaches a real
/// service.
///
/// - Parameters:
///   - modify: Changes the world that the scope starts with.
///   - operation: The work to run in the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `modify` or `operation` throws.
/// - Complexity: O(1), as `withWorld(_:operation:)`, plus reading ``Current`` and what `modify`
///   changes: each field it sets copies the world's fields into a new object (one allocation;
///   two for the calendar, locale, time zone and preferred languages, which share an object of
///   their own).
public func withWorld<Output, Failure: Error>(
  _ modify: (inout World) throws(Failure) -> Void,
  operation: () throws(Failure) -> Output
) throws(Failure) -> Output {
  try withWorld(current(changedBy: modify), operation: operation)
}

/// Runs the asynchronous `operation` with ``Current`` replaced by `world`, and returns its
/// result.
///
/// The scope ends when `operation` returns or throws. Child tasks that `operation` creates
/// (`async let`, task groups) and unstructured tasks (`Task { }`) inherit the scope, and share
/// its world: an assignment in one of them is seen by the others. A detached task reads the
/// global world; carry the world along with `let world = Current` and
/// `Task.detached { await withWorld(world) { … } }`. `operation` runs on the caller's actor
/// (`isolation`).
///
/// ```swift
/// @Test func greetsTheUser() async throws {
///   try await withWorld(.mock) {
///     Current.api = .loggedIn(as: "Ada")
///     #expect(try await greeting() == "Hello, Ada")
///   }
/// }
/// ```
///
/// - Parameters:
///   - world: The world ``Current`` is during `operation`.
///   - isolation: The actor `operation` runs on; the caller's, by default.
///   - operation: The work to run in the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws, after the scope has ended.
/// - Complexity: O(1), as the synchronous form.
public func withWorld<Output, Failure: Error>(
  _ world: World,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws(Failure) -> Output
) async throws(Failure) -> Output {
  do {
    return try await Scope.$innermost.withValue(
      Scope(world), operation: operation, isolation: isolation)
  } catch {
    // `withValue` rethrows untyped; only `operation`'s error can arrive here.
    throw error as! Failure
  }
}

/// Runs the asynchronous `operation` with ``Current`` replaced by a changed copy of itself,
/// and returns its result.
///
/// `modify` changes a copy of ``Current`` as it is now (outside every scope, the global world);
/// `operation` then runs in a scope with it, as with `withWorld(_:isolation:operation:)`. If
/// `modify` throws, `operation` does not run.
///
/// ```swift
/// await withWorld(.mock) {
///   await withWorld({ $0.date = { .distantPast } }) {
///     await archive.expireOldEntries()
///   }
/// }
/// ```
///
/// - Parameters:
///   - modify: Changes the world that the scope starts with.
///   - isolation: The actor `operation` runs on; the caller's, by default.
///   - operation: The work to run in the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `modify` or `operation` throws.
/// - Complexity: O(1), as the synchronous form.
public func withWorld<Output, Failure: Error>(
  _ modify: (inout World) throws(Failure) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  operation: () async throws(Failure) -> Output
) async throws(Failure) -> Output {
  try await withWorld(current(changedBy: modify), isolation: isolation, operation: operation)
}

/// ``Current`` as it is now, changed by `modify`: the world both modifying forms start from.
private func current<Failure: Error>(
  changedBy modify: (inout World) throws(Failure) -> Void
) throws(Failure) -> World {
  var world = Current
  try modify(&world)
  return world
}
