import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// Both stores, made fresh for each test: the in-memory one, and user defaults in a suite
/// of their own that the test removes when it ends.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible {
  case inMemory
  case userDefaults

  var testDescription: String { rawValue }

  /// Writes per thread in the stress test: user defaults on Linux rewrite their whole domain
  /// on every write, so 250 writes from each of 8 threads took over 10 seconds there.
  var writesPerThread: Int { self == .inMemory ? 250 : 30 }

  func withStore(_ body: (KeyValueStore) throws -> Void) rethrows {
    switch self {
    case .inMemory:
      try body(.inMemory())
    case .userDefaults:
      let suite = "org.tinyblocks.tests.\(UUID().uuidString)"
      defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
      try body(.userDefaults(suiteName: suite))
    }
  }
}

/// Serialized: two tests watch the user-defaults folder for new files.
@Suite(.serialized) struct KeyValueStoreTests {
  @Test(arguments: StoreKind.allCases)
  func valuesRoundTripWithTheSameTypesInBothStores(kind: StoreKind) {
    kind.withStore { store in
      let date = Date(timeIntervalSince1970: 1_536_894_000.25)
      store.set(true, forKey: "bool")
      store.set(false, forKey: "false")
      store.set(1, forKey: "one")
      store.set(-42, forKey: "int")
      store.set(2.5, forKey: "double")
      store.set("", forKey: "empty string")
      store.set("ada", forKey: "string")
      store.set(date, forKey: "date")
      store.set(Data([0, 1, 255]), forKey: "data")
      store.set([1, 2, 3], forKey: "ints")
      store.set([String](), forKey: "empty array")
      store.set(["tea": 2, "cake": 1], forKey: "dictionary")
      store.set([["a": [1.5]]], forKey: "nested")
      store.set("value under an empty key", forKey: "")

      #expect(store.value(forKey: "bool") as? Bool == true)
      #expect(store.value(forKey: "false") as? Bool == false)
      #expect(store.value(forKey: "one") as? Int == 1)  // an Int, never a Bool
      #expect(store.value(forKey: "one") as? Bool == nil)
      #expect(store.value(forKey: "bool") as? Int == nil)
      #expect(store.value(forKey: "int") as? Int == -42)
      #expect(store.value(forKey: "double") as? Double == 2.5)
      #expect(store.value(forKey: "empty string") as? String == "")
      #expect(store.value(forKey: "string") as? String == "ada")
      #expect(store.value(forKey: "date") as? Date == date)
      #expect(store.value(forKey: "data") as? Data == Data([0, 1, 255]))
      #expect(store.value(forKey: "ints") as? [Int] == [1, 2, 3])
      #expect(store.value(forKey: "ints") is [any Sendable])
      #expect(store.value(forKey: "empty array") as? [String] == [])
      #expect(store.value(forKey: "dictionary") as? [String: Int] == ["tea": 2, "cake": 1])
      #expect(store.value(forKey: "dictionary") is [String: any Sendable])
      #expect(store.value(forKey: "nested") as? [[String: [Double]]] == [["a": [1.5]]])
      #expect(store.value(forKey: "") as? String == "value under an empty key")

      #expect(store.value(forKey: "ints", as: [Int].self) == [1, 2, 3])
      #expect(store.value(forKey: "ints", as: [String].self) == nil)
      #expect(store.value(forKey: "string", as: Int.self) == nil)
      let typed: String? = store.value(forKey: "string")
      #expect(typed == "ada")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func settingReplacesAndRemovingRemoves(kind: StoreKind) {
    kind.withStore { store in
      #expect(store.value(forKey: "missing") == nil)
      store.removeValue(forKey: "missing")  // nothing to remove: no effect
      store.set("first", forKey: "key")
      store.set(2, forKey: "key")
      #expect(store.value(forKey: "key") as? Int == 2)
      store.removeValue(forKey: "key")
      #expect(store.value(forKey: "key") == nil)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func copiesOfAStoreShareItsValues(kind: StoreKind) {
    kind.withStore { store in
      let copy = store
      copy.set("shared", forKey: "key")
      #expect(store.value(forKey: "key", as: String.self) == "shared")
    }
  }

  @Test func userDefaultsSuitesPersistAcrossStoreInstances() {
    let suite = "org.tinyblocks.tests.\(UUID().uuidString)"
    defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
    KeyValueStore.userDefaults(suiteName: suite).set("kept", forKey: "key")
    #expect(UserDefaults(suiteName: suite)?.string(forKey: "key") == "kept")
    #expect(KeyValueStore.userDefaults(suiteName: suite).value(forKey: "key") as? String == "kept")
  }

  @Test(arguments: StoreKind.allCases)
  func manyThreadsWritingDistinctKeysLoseNothing(kind: StoreKind) {
    let writes = kind.writesPerThread
    kind.withStore { store in
      DispatchQueue.concurrentPerform(iterations: 8) { thread in
        for index in 0..<writes {
          store.set(index, forKey: "\(thread).\(index)")
          _ = store.value(forKey: "\(thread).\(index / 2)")
        }
      }
      var found = 0
      for thread in 0..<8 {
        for index in 0..<writes where store.value(forKey: "\(thread).\(index)") as? Int == index {
          found += 1
        }
      }
      #expect(found == 8 * writes)
    }
  }

  @Test func theInMemoryStoreWritesNoFile() throws {
    // The suite is serialized, so no other test writes user defaults meanwhile.
    let defaultsFolder = try userDefaultsFolder()
    let watched =
      [defaultsFolder, FileManager.default.homeDirectoryForCurrentUser]
      + [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
    let before = watched.map(entries)
    let plistsBefore = plistDates(defaultsFolder)
    let store = KeyValueStore.inMemory()
    for index in 0..<100 { store.set(["value": index], forKey: "key \(index)") }
    store.removeValue(forKey: "key 0")
    #expect(store.value(forKey: "key 1") as? [String: Int] == ["value": 1])
    withWorld(.mock) { Current.storage.set("mock", forKey: "key") }
    #expect(watched.map(entries) == before)
    // No new file, and no existing user-defaults file (the standard one included) written.
    #expect(plistDates(defaultsFolder) == plistsBefore)
  }

  @Test func theUserDefaultsStoreDoesWriteAFile() throws {
    // The control for the test above: the same check sees the live store's file.
    let folder = try userDefaultsFolder()
    let before = entries(folder)
    let suite = "org.tinyblocks.tests.\(UUID().uuidString)"
    defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
    KeyValueStore.userDefaults(suiteName: suite).set("written", forKey: "key")
    UserDefaults(suiteName: suite)?.synchronize()
    #expect(entries(folder).subtracting(before).contains { $0.hasPrefix(suite) })
  }

  #if canImport(Darwin)
    @Test func aSuiteNameTheSystemRefusesStopsTheProgram() async {
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) {
        _ = KeyValueStore.userDefaults(suiteName: "NSGlobalDomain")
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("KeyValueStore.userDefaults(suiteName:)"))
      #expect(message.contains("NSGlobalDomain"))
    }
  #endif
}

/// The folder where user defaults keep their files (`~/.config` on Linux,
/// `~/Library/Preferences` on Apple platforms), found by writing a probe suite.
func userDefaultsFolder() throws -> URL {
  let suite = "org.tinyblocks.probe.\(UUID().uuidString)"
  let defaults = try #require(UserDefaults(suiteName: suite))
  defer { defaults.removePersistentDomain(forName: suite) }
  defaults.set(true, forKey: "probe")
  defaults.synchronize()
  let home = FileManager.default.homeDirectoryForCurrentUser
  for folder in [".config", "Library/Preferences", ".config/Preferences"] {
    let candidate = home.appendingPathComponent(folder)
    if entries(candidate).contains("\(suite).plist") { return candidate }
  }
  throw ProbeNotFound()
}

struct ProbeNotFound: Error {}

/// The property-list files directly in `folder`, with the dates they were last modified.
func plistDates(_ folder: URL) -> [String: Date] {
  var dates: [String: Date] = [:]
  for name in entries(folder) where name.hasSuffix(".plist") {
    let path = folder.appendingPathComponent(name).path
    dates[name] =
      (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
  }
  return dates
}

/// The names of the entries directly in `folder`.
func entries(_ folder: URL) -> Set<String> {
  Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
}
