import Testing
import TinyTestSupport

@testable import TinyContext

/// A write over a stored typed value reuses the value's box: no allocation per write.
@Suite(.timeLimit(suiteTimeLimit)) struct ContextWriteTests {
  @Test func aWriteOverAStoredValueKeepsItsBoxAndReplacesTheValue() throws {
    let info = ContextInfo()
    let key = ContextKey<String>("name")
    info[key] = "first"
    let storage = try #require(info.storage)
    // A weak reference does not count toward uniqueness: the box is still the table's alone.
    weak let box = storage.values.withLock { $0.typed.first }
    #expect(box != nil)
    info[key] = "second"
    #expect(box != nil)  // a new box would have freed the first one
    #expect(storage.values.withLock { $0.typed.first } === box)
    #expect(info[key] == "second")
    #expect(storage.values.withLock { $0.typed.count } == 1)
  }
}
