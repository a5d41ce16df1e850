import Foundation
import Testing
@testable import TinyEnvironment
import TinyTestSupport

/// What the user-defaults store keeps on disk, across processes: an exit test runs its body in
/// a child process that ends normally when the body returns.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct KeyValueStorePersistenceTests {
  @Test func everyValueSetInOneProcessIsReadInTheNext() async {
    let suite = newSuiteName()
    defer { removeSuiteFile(suite) }
    // The child neither flushes nor synchronizes: ending normally is enough.
    await #expect(processExitsWith: .success) { [suite = suite as String] in
      writeEdgeValues(to: .userDefaults(suiteName: suite))
      writeLargeValues(to: .userDefaults(suiteName: suite))
    }
    #expect(edgeValueMismatches(in: .userDefaults(suiteName: suite)) == [])
    #expect(largeValueMismatches(in: .userDefaults(suiteName: suite)) == [])
  }

  @Test func everyValueSetHereIsReadInAnotherProcess() async {
    let suite = newSuiteName()
    defer { removeSuiteFile(suite) }
    writeEdgeValues(to: .userDefaults(suiteName: suite))
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      [suite = suite as String] in
      let wrong = edgeValueMismatches(in: .userDefaults(suiteName: suite))
      if !wrong.isEmpty {
        FileHandle.standardError.write(Data("mismatched: \(wrong)\n".utf8))
        exit(1)
      }
    }
    #expect(String(decoding: result?.standardErrorContent ?? [], as: UTF8.self) == "")
  }

  @Test func anotherProcesssChangesToOtherKeysSurviveAWrite() async {
    let suite = newSuiteName()
    defer { removeSuiteFile(suite) }
    let store = KeyValueStore.userDefaults(suiteName: suite)
    store.set("mine", forKey: "a")
    store.set("mine, removed by the other process", forKey: "b")
    await #expect(processExitsWith: .success) { [suite = suite as String] in
      let theirs = KeyValueStore.userDefaults(suiteName: suite)
      guard theirs.value(forKey: "a", as: String.self) == "mine" else { exit(1) }
      theirs.set("theirs", forKey: "c")
      theirs.removeValue(forKey: "b")
    }
    store.set("mine too", forKey: "d")
    #expect(store.value(forKey: "c", as: String.self) == "theirs")
    #expect(store.value(forKey: "b") == nil)
    let file = suiteFileContents(suite)
    #expect(file?["a"] as? String == "mine")
    #expect(file?["b"] == nil)
    #expect(file?["c"] as? String == "theirs")
    #expect(file?["d"] as? String == "mine too")
  }

  @Test(
    arguments: [
      ("../escape", "\"../escape\" contains \"/\", which would put the suite's file outside"),
      ("a\u{0}b", "\"a\\0b\" contains a NUL character"),
    ])
  func suiteNamesThatCannotWorkStopTheProgramWhenTheStoreIsMade(name: String, problem: String)
    async
  {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [name = name as String] in
      _ = KeyValueStore.userDefaults(suiteName: name)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("KeyValueStore.userDefaults(suiteName:): the suite name " + problem))
  }

  @Test(
    arguments: [
      ("", "is empty"),
      ("a/b", "contains \"/\""),
      ("../escape", "contains \"/\""),
      ("/tmp/absolute", "contains \"/\""),
      ("a\u{0}b", "contains a NUL character"),
      (String(repeating: "x", count: 250), "is 250 bytes long, and at most 249 fit"),
      (String(repeating: "é", count: 125), "is 250 bytes long, and at most 249 fit"),
      ("NSGlobalDomain", "is the global domain"),
    ])
  func suiteNamesThatCannotWorkAreRefused(name: String, problem: String) {
    #expect(SuiteName.problem(with: name)?.hasPrefix(problem) == true)
  }

  @Test(arguments: [
    "..", "a..b", ".hidden", "with space", "ünïcödé", "nsglobaldomain",
    String(repeating: "x", count: 249),
    String(repeating: "é", count: 124) + "x",
  ])
  func otherSuiteNamesAreAccepted(name: String) {
    #expect(SuiteName.problem(with: name) == nil)
  }

  @Test(arguments: zip([StoreKind.inMemory, .userDefaults], [false, true]))
  func valuesNestedTooDeepAreRefusedWhenSet(kind: StoreKind, inDictionaries: Bool) async {
    let suite = newSuiteName()
    defer { removeSuiteFile(suite) }  // the child stops before it can
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [kind = kind as StoreKind, inDictionaries = inDictionaries as Bool, suite = suite as String]
      in
      let store: KeyValueStore = kind == .inMemory ? .inMemory() : .userDefaults(suiteName: suite)
      let limit = PropertyListLimits.nesting
      // The deepest value is accepted, one level more is refused.
      let deepest = inDictionaries ? nestedDictionary(limit, 1) : nested(limit, 1)
      store.set(deepest, forKey: "ok")
      let tooDeep = inDictionaries ? nestedDictionary(limit + 1, 1) : nested(limit + 1, 1)
      store.set(tooDeep, forKey: "deep")
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("KeyValueStore.set(_:forKey:)"))
    #expect(message.contains("more than 256 levels deep (key \"deep\")"))
  }

  #if !canImport(Darwin)
    @Test(arguments: [
      "..", "a..b", ".hidden", "with space", "ünïcödé", String(repeating: "x", count: 249),
    ])
    func otherSuiteNamesWorkAndStayInTheDefaultsFolder(name: String) {
      let outside = defaultsFolder.deletingLastPathComponent()
      let before = entries(outside)
      removeSuiteFile(name)
      defer { removeSuiteFile(name) }
      let store = KeyValueStore.userDefaults(suiteName: name)
      store.set("value", forKey: "key")
      #expect(store.value(forKey: "key", as: String.self) == "value")
      #expect(suiteFileContents(name)?["key"] as? String == "value")
      #expect(entries(outside) == before)
      store.removeValue(forKey: "key")
    }

    @Test func theStandardFileIsNamedAfterTheBundleElseTheProcess() {
      let name = PropertyListFileBackend.domainName
      #expect(name("com.example.app", "tool") == "com.example.app")
      #expect(name("", "tool") == "tool")
      #expect(name(nil, "tool") == "tool")
    }

    @Test func theFileIsWrittenBeforeSetReturnsAndRemovedWithTheLastValue() {
      withSuite { suite in
        let store = KeyValueStore.userDefaults(suiteName: suite)
        store.set("written", forKey: "key")
        #expect(suiteFileContents(suite)?["key"] as? String == "written")
        store.set(2, forKey: "other")
        #expect(suiteFileContents(suite)?.count == 2)
        store.removeValue(forKey: "key")
        #expect(suiteFileContents(suite)?["key"] == nil)
        store.removeValue(forKey: "other")
        #expect(!FileManager.default.fileExists(atPath: suiteFile(suite).path))
        // No temporary file is left beside it.
        #expect(!entries(defaultsFolder).contains { $0.contains(suite) })
      }
    }

    @Test func foundationsUserDefaultsReadsTheStoresFile() throws {
      try withSuite { suite in
        KeyValueStore.userDefaults(suiteName: suite).set("kept", forKey: "key")
        KeyValueStore.userDefaults(suiteName: suite).set(preciseDate, forKey: "date")
        let defaults = try #require(UserDefaults(suiteName: suite))
        #expect(defaults.string(forKey: "key") == "kept")
        #expect(defaults.object(forKey: "date") as? Date == preciseDate)
      }
    }

    @Test func entriesNoStoreCanHandOutAreKeptInTheFile() throws {
      try withSuite { suite in
        // Another program's file: an integer beyond Int, and arrays nested past the limit.
        var deep: Any = 1
        for _ in 0..<300 { deep = [deep] }
        let file: [String: Any] = ["big": UInt64.max, "deep": deep, "plain": "text"]
        try FileManager.default.createDirectory(
          at: defaultsFolder, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: file, format: .xml, options: 0)
          .write(to: suiteFile(suite))
        let store = KeyValueStore.userDefaults(suiteName: suite)
        #expect(store.value(forKey: "big") == nil)
        #expect(store.value(forKey: "deep") == nil)
        #expect(store.value(forKey: "plain", as: String.self) == "text")
        store.set("new", forKey: "other")
        let written = try #require(suiteFileContents(suite))
        #expect((written["big"] as? NSNumber)?.uint64Value == UInt64.max)
        #expect(written["deep"] is [Any])
        #expect(written["other"] as? String == "new")
        store.removeValue(forKey: "big")
        #expect(suiteFileContents(suite)?["big"] == nil)
        #expect(suiteFileContents(suite)?["deep"] is [Any])
      }
    }

    @Test func aChangeThatCannotBeWrittenStaysAndFlushReportsIt() throws {
      try withSuite { suite in
        let store = KeyValueStore.userDefaults(suiteName: suite)
        // A folder where the file belongs: no file can be renamed over it.
        try FileManager.default.createDirectory(
          at: suiteFile(suite), withIntermediateDirectories: true)
        store.set("kept", forKey: "key")
        #expect(store.value(forKey: "key", as: String.self) == "kept")
        let error = #expect(throws: KeyValueStoreError.self) { try store.flush() }
        guard case .notWritten(let path, let reason)? = error else { return }
        #expect(path == suiteFile(suite).path)
        #expect(!reason.isEmpty)
        try FileManager.default.removeItem(at: suiteFile(suite))
        try store.flush()
        #expect(suiteFileContents(suite)?["key"] as? String == "kept")
        try store.flush()
      }
    }

    @Test func aChangeThatCouldNotBeWrittenIsWrittenAtExit() async {
      let suite = newSuiteName()
      defer { removeSuiteFile(suite) }
      let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
        [suite = suite as String] in
        let store = KeyValueStore.userDefaults(suiteName: suite)
        try? FileManager.default.createDirectory(
          at: suiteFile(suite), withIntermediateDirectories: true)
        store.set("kept", forKey: "key")
        try? FileManager.default.removeItem(at: suiteFile(suite))
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("KeyValueStore could not write \(suiteFile(suite).path)"))
      #expect(suiteFileContents(suite)?["key"] as? String == "kept")
    }
  #endif
}
