import Foundation
import Testing
import TinyTestSupport

@testable import TinyEnvironment

/// A read of `Current` inside a scope finds the scope's box where the runtime keeps the task
/// local's binding, instead of copying it out with `TaskLocal.get()`. These tests check, in
/// every context a read can run in, that the two always find the same box.
@Suite(.timeLimit(suiteTimeLimit)) struct ScopeLookupTests {
  /// The box the runtime's lookup finds, or `outside` when it finds no binding.
  private static func foundInPlace() -> Scopes.Box {
    let scopes = Scopes.shared
    guard
      let address = taskLocalValueAddress(Unmanaged.passUnretained(scopes.innermost).toOpaque())
    else { return scopes.outside }
    return Unmanaged<Scopes.Box>.fromOpaque(address.load(as: UnsafeRawPointer.self))
      .takeUnretainedValue()
  }

  /// Whether the lookup in place and `TaskLocal.get()` find the same box, and which.
  private static func lookup() -> (agrees: Bool, inAScope: Bool) {
    let copied = Scopes.shared.innermost.get()
    return (foundInPlace() === copied, copied !== Scopes.shared.outside)
  }

  @Test func outsideEveryScope() async {
    #expect(Self.lookup() == (true, false))
    #expect(await Task.detached { Self.lookup() }.value == (true, false))
    #expect(onNewThreadBlocking { Self.lookup() } == (true, false))
  }

  @Test func inSynchronousScopesNestedOrNot() {
    withWorld(.mock) {
      #expect(Self.lookup() == (true, true))
      let outer = Self.foundInPlace()
      withWorld(.mock) {
        #expect(Self.lookup() == (true, true))
        #expect(Self.foundInPlace() !== outer)
      }
      #expect(Self.foundInPlace() === outer)
    }
    #expect(Self.lookup() == (true, false))
  }

  @Test func inAsyncScopesAndTheirTasks() async {
    await withWorld(.mock) { () async in
      #expect(Self.lookup() == (true, true))
      let scope = Self.foundInPlace()
      async let child = Self.foundInPlace() === scope
      #expect(await child)
      let inGroup = await withTaskGroup(of: Bool.self) { group in
        for _ in 0..<4 { group.addTask { Self.lookup() == (true, true) } }
        return await group.reduce(true) { $0 && $1 }
      }
      #expect(inGroup)
      #expect(await Task { Self.lookup() }.value == (true, true))
      #expect(await Task.detached { Self.lookup() }.value == (true, false))
      let fromQueue = await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: Self.lookup()) }
      }
      #expect(fromQueue == (true, false))
    }
  }

  @Test func inAnUnstructuredTaskAfterItsScopeEnded() async {
    let gate = Gate()
    let task = withWorld(.mock) {
      Task { () async -> Bool in
        await gate.opened()
        return Self.lookup() == (true, true)
      }
    }
    withWorld(.mock) {}  // another scope, perhaps reusing a pooled box
    gate.open()
    #expect(await value(of: task))
  }

  @Test func thisRuntimeKeepsBindingsWhereReadsLookThemUp() {
    #expect(Scopes.shared.readsInPlace)
  }

  @Test func aScopesWorldIsReadInPlaceUntilItIsReplaced() {
    withWorld(.mock) {
      let box = Self.foundInPlace()
      let read = Scopes.shared.read()
      #expect(read.slot == box.initialSlot && read.pin == nil)
      Current.locale = Locale(identifier: "fr_FR")
      let replaced = Scopes.shared.read()
      #expect(replaced.slot != box.initialSlot && replaced.pin != nil)
      #expect(replaced.slot.pointee.locale.identifier == "fr_FR")
      withExtendedLifetime(replaced) {}
      // The read that copies the box out finds the same.
      let copying = Scopes.shared.copyingRead()
      #expect(copying.slot == replaced.slot)
      withExtendedLifetime(copying) {}
    }
  }

  @Test func aReadThatIsNotInPlaceHoldsTheObjectItsWorldIsIn() {
    // Outside every scope: the global world's cell.
    #expect(Scopes.shared.read().pin != nil)
    withWorld(.mock) {
      // In place: the scope's binding holds the box, which holds the world.
      #expect(Scopes.shared.read().pin == nil)
      let (first, firstMarker) = markedWorld()
      Current = first
      let read = Scopes.shared.read()
      weak let held = read.pin
      Current = markedWorld().world  // the box lets go of `first`'s cell; the read still holds it
      #expect(held != nil)
      #expect(read.slot.pointee.preferredLanguages == [firstMarker])
      withExtendedLifetime(read) {}
    }
  }
}
