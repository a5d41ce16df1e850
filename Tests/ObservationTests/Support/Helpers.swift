import Dispatch
import Foundation
import TinyTestSupport

@testable import TinyObservation

/// The identity of the calling thread (call it from synchronous code).
func currentThread() -> ObjectIdentifier {
  ObjectIdentifier(Thread.current)
}

/// An error for throwing bodies and failing commits.
struct Oops: Error, Equatable {
  let code: Int
}

/// An object whose deallocation tests observe through a weak reference.
final class Owner: Sendable {
  let name: String

  init(_ name: String = "owner") {
    self.name = name
  }
}
