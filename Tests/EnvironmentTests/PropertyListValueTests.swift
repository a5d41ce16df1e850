import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// A type that conforms although it is not a property-list value, which the guide says not to
/// do: stores must stop with a message rather than write something unreadable.
private struct NotAPropertyList: PropertyListValue {}

@Suite(.timeLimit(.minutes(1))) struct PropertyListValueTests {
  @Test func theConformingTypesAreThePropertyListTypes() {
    func accepts<Value: PropertyListValue>(_: Value.Type) -> Bool { true }
    #expect(accepts(Bool.self) && accepts(Int.self) && accepts(Double.self))
    #expect(accepts(String.self) && accepts(Date.self) && accepts(Data.self))
    #expect(accepts([Int].self) && accepts([String: [Date]].self) && accepts([[String: Data]].self))
  }

  @Test func storingATypeThatIsNotAPropertyListStopsTheProgram() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      KeyValueStore.inMemory().set([NotAPropertyList()], forKey: "bad")
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("KeyValueStore.set(_:forKey:)"))
    #expect(message.contains("NotAPropertyList"))
    await #expect(processExitsWith: .failure) {
      let suite = "org.tinyblocks.tests.\(UUID().uuidString)"
      KeyValueStore.userDefaults(suiteName: suite).set(NotAPropertyList(), forKey: "bad")
    }
  }
}
