import Foundation
import TinyEnvironment
import TinyTestSupport

/// A world that no other test uses, told apart by a unique preferred language: tests that
/// check which world code reads never confuse it with another test's world, even when tests
/// run in parallel and one of them changes the global world.
func markedWorld(_ base: World = .mock) -> (world: World, marker: String) {
  let marker = "x-\(UUID().uuidString)"
  var world = base
  world.preferredLanguages = [marker]
  return (world, marker)
}

/// The marker of the world `Current` is, when it is a marked world.
var currentMarker: String? {
  Current.preferredLanguages.first { $0.hasPrefix("x-") }
}
