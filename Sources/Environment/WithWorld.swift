/// Runs `operation` with ``Current`` replaced by `world`, and returns its result.
///
/// The scope ends when `operation` returns or throws; ``Current`` is then what it was before.
/// Scopes nest: an inner scope hides the outer one until it ends. Inside the scope,
/// assignments to ``Current`` change the scope's own world only. Code that `operation` runs
/// synchronously on the calling thread sees the scope; work it sends to a dispatch queue or
/// another thread reads the global world (see ``Current``).
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
/// - Complexity: O(1): binding a task local, and two atomic operations to take one of 32
///   pooled scope boxes and give it back. The scope borrows `world` rather than copying it. No
///   allocation while at most 32 scopes are open at once across the process: a scope beyond
///   those allocates its box, and so does the next scope to take a pooled box that a task
///   created in an earlier scope still held when that scope ended.
public func withWorld<Output, Failure: Error>(
  _ world: World,
  operation: () throws(Failure) -> Output
) throws(Failure) -> Output {
  try Scopes.withShared { (scopes) throws(Failure) in try scopes.run(world, operation) }
}

/// Runs `operation` with ``Current`` replaced by a changed copy of itself, and returns its
/// result.
///
/// `modify` receives a copy of the current world (the innermost scope's, else the global one)
/// and changes it; `operation` then runs in a scope with the changed world, exactly as with
/// `withWorld(_:operation:)`. If `modify` throws, `operation` does not run.
///
/// Outside every scope, while the global world is live, there is no world a test should
/// change: the copy would be the live world, with its real services and storage. The call then
/// stops the program with a message that says what to write instead — `withWorld(.mock) { … }`
/// and assignments inside, or `withWorld(.live) { … }` around it to mean the live world. Inside a
/// scope, or when the global world was set to a mock world, it starts from that world.
///
/// ```swift
/// withWorld(.mock) {
///   withWorld({ $0.locale = Locale(identifier: "es_ES") }) {
///     Current.locale.identifier          // "es_ES"
///   }
///   try withWorld({ try $0.setTimeZone(identifier: "Pacific/Honolulu") }) { … }
/// }
/// ```
///
/// - Parameters:
///   - modify: Changes the world that the scope starts with.
///   - operation: The work to run in the scope.
/// - Returns: What `operation` returns.
/// - Throws: What `modify` or `operation` throws.
/// - Complexity: O(1), as `withWorld(_:operation:)`, plus copying the current world (one
///   reference count) and what `modify` changes: each field it sets copies the world's fields
///   into a new object (one allocation; two for the calendar, locale, time zone and preferred
///   languages, which share an object of their own).
public func withWorld<Output, Failure: Error>(
  _ modify: (inout World) throws(Failure) -> Void,
  operation: () throws(Failure) -> Output
) throws(Failure) -> Output {
  var world = Scopes.withShared { $0.worldToModify() }
  try modify(&world)
  return try Scopes.withShared { (scopes) throws(Failure) in try scopes.run(world, operation) }
}

/// Runs the asynchronous `operation` with ``Current`` replaced by `world`, and returns its
/// result.
///
/// The scope ends when `operation` returns or throws. Child tasks that `operation` creates
/// (`async let`, task groups) and unstructured tasks (`Task { }`) inherit the scope, and share
/// its world: an assignment in one of them is seen by the others. A detached task reads the
/// global world. `operation` runs on the caller's actor (`isolation`).
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
  try await Scopes.shared.run(world, isolation: isolation, operation)
}

/// Runs the asynchronous `operation` with ``Current`` replaced by a changed copy of itself,
/// and returns its result.
///
/// `modify` changes a copy of the current world; `operation` then runs in a scope with it, as
/// with `withWorld(_:isolation:operation:)`. If `modify` throws, `operation` does not run.
/// Outside every scope, while the global world is live, it stops the program, as the
/// synchronous form does.
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
  var world = Scopes.withShared { $0.worldToModify() }
  try modify(&world)
  return try await Scopes.shared.run(world, isolation: isolation, operation)
}
