import Foundation
import Testing
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

extension World {
  /// Assigns `other` to `Current` while `self`, read through `Current`, is still in use; runs
  /// `during`, then returns `self`'s marker (read after the assignment).
  func assigningCurrent(_ other: World, during: () -> Void) -> String? {
    Current = other
    during()
    return preferredLanguages.first { $0.hasPrefix("x-") }
  }
}

/// A marked world whose `date` closure holds a probe that records "freed" in `freed` when the
/// last copy of the world is released.
func markedWorldHoldingAProbe(_ freed: Recorder<String>) -> (world: World, marker: String) {
  var (world, marker) = markedWorld()
  let probe = OnDeinit { freed.record("freed") }
  world.date = { [probe] in
    _ = probe
    return .distantPast
  }
  return (world, marker)
}

/// Makes a marked world holding a probe the current world (the global one outside every scope,
/// else the innermost scope's), so that only `Current` holds it; then, while a read of
/// `Current` still uses it, assigns another world. Checks that the read kept reading its world,
/// that the world lived until the read ended, and, with `freedAtOnce`, that it was freed then
/// (a test of the global world leaves that out: a test running in parallel may be reading the
/// global world at that moment, and hold it a little longer).
func expectAWorldReplacedDuringAReadToLiveUntilTheReadEnds(freedAtOnce: Bool = true) {
  let freed = Recorder<String>()
  let marker: String
  do {
    let (world, probeMarker) = markedWorldHoldingAProbe(freed)
    marker = probeMarker
    Current = world
  }
  let (next, nextMarker) = markedWorld()
  var freedDuringTheRead: [String]?
  let readMarker = Current.assigningCurrent(next) { freedDuringTheRead = freed.all }
  #expect(readMarker == marker)
  #expect(freedDuringTheRead == [])
  if freedAtOnce { #expect(freed.all == ["freed"]) }
  #expect(currentMarker == nextMarker)
}

extension World {
  /// Opens `entered`, then returns `self`'s marker, read after `gate` opens (the calling task
  /// suspends until then).
  func markerOnceOpened(_ gate: Gate, entered: Gate) async -> String? {
    entered.open()
    await gate.opened()
    return preferredLanguages.first { $0.hasPrefix("x-") }
  }
}
