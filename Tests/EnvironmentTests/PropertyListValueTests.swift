import Foundation
import Testing
@testable import TinyEnvironment
import TinyTestSupport

/// A type that conforms although it is not a property-list value, which the guide says not to
/// do: stores must stop with a message rather than write something unreadable.
private struct NotAPropertyList: PropertyListValue {}

// Numbers of other types, conformed by hand: they would read back as `Double` or `Int`.
extension Float: PropertyListValue {}
extension Int32: PropertyListValue {}
extension UInt8: PropertyListValue {}

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PropertyListValueTests {
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

  @Test func storingANumberOfAnotherTypeStopsTheProgramNamingIt() async {
    let float = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      KeyValueStore.inMemory().set(Float(1.5), forKey: "f")
    }
    let floatMessage = String(decoding: float?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      floatMessage.contains(
        #"KeyValueStore.set(_:forKey:): Float is not a property-list value (key "f")"#))
    await #expect(processExitsWith: .failure) {
      KeyValueStore.inMemory().set(Int32(7), forKey: "i")
    }
    let nested = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      KeyValueStore.inMemory().set(["bytes": [UInt8(1)]], forKey: "d")
    }
    let nestedMessage = String(decoding: nested?.standardErrorContent ?? [], as: UTF8.self)
    let expected =
      "KeyValueStore.set(_:forKey:): UInt8, inside a Dictionary<String, Array<UInt8>>, is not "
      + #"a property-list value (key "d")"#
    #expect(nestedMessage.contains(expected))
  }

}

/// How numbers from a property-list API are told apart: Apple platforms' `UserDefaults` hands
/// back `NSNumber`s, and every `NSNumber` also casts to `Bool`, `Int` and `Double`.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct PropertyListNumberTests {
  @Test func numbersKeepTheirKind() throws {
    #expect(try PropertyList.normalized(NSNumber(value: true)) as? Bool == true)
    #expect(try PropertyList.normalized(NSNumber(value: false)) as? Bool == false)
    #expect(try PropertyList.normalized(NSNumber(value: true)) as? Int == nil)
    #expect(try PropertyList.normalized(NSNumber(value: 1)) as? Int == 1)
    #expect(try PropertyList.normalized(NSNumber(value: 1)) as? Bool == nil)
    #expect(try PropertyList.normalized(NSNumber(value: Int64.max)) as? Int == Int.max)
    #expect(try PropertyList.normalized(NSNumber(value: Int32.min)) as? Int == Int(Int32.min))
    #expect(try PropertyList.normalized(NSNumber(value: UInt32.max)) as? Int == Int(UInt32.max))
    #expect(try PropertyList.normalized(NSNumber(value: 2.5)) as? Double == 2.5)
    #expect(try PropertyList.normalized(NSNumber(value: 1.0)) as? Double == 1.0)
    #expect(try PropertyList.normalized(NSNumber(value: Float(1.5))) as? Double == 1.5)
    let negativeZero = try PropertyList.normalized(NSNumber(value: -0.0)) as? Double
    #expect(negativeZero?.bitPattern == (-0.0).bitPattern)
    #expect(throws: PropertyList.Problem.self) {
      try PropertyList.normalized(NSNumber(value: UInt64.max))
    }
    let array = try PropertyList.normalized([NSNumber(value: true), NSNumber(value: 1)] as [Any])
    #expect((array as? [any Sendable])?.first is Bool)
    #expect((array as? [any Sendable])?.last is Int)
  }
}
