import Foundation

extension NSLock {
  /// Runs `body` with the lock held and returns its result.
  ///
  /// Written here rather than using `NSLocking.withLock` so that the same code builds with
  /// every Foundation this package supports. Never call user code from `body`.
  @inline(__always)
  func holding<Result>(_ body: () throws -> Result) rethrows -> Result {
    lock()
    defer { unlock() }
    return try body()
  }
}
