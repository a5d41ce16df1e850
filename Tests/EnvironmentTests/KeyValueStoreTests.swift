import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct KeyValueStoreTests {
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
      #expect(store.value(forKey: "double", as: Int.self) == nil)  // no conversion
      let typed: String? = store.value(forKey: "string")
      #expect(typed == "ada")
    }
  }

  @Test(arguments: StoreKind.allCases)
  func valuesAtTheEdgesOfTheirTypesRoundTripExactly(kind: StoreKind) {
    kind.withStore { store in
      writeEdgeValues(to: store)
      #expect(edgeValueMismatches(in: store) == [])
      if kind == .inMemory {  // the user-defaults store's are read in another process
        writeLargeValues(to: store)
        #expect(largeValueMismatches(in: store) == [])
      }
    }
  }

  @Test(arguments: StoreKind.allCases)
  func dictionariesNestedAsDeepAsAllowedRoundTrip(kind: StoreKind) {
    // Apart from the other edge values: the file format takes long to write such a value.
    kind.withStore { store in
      store.set(nestedDictionary(PropertyListLimits.nesting, "leaf"), forKey: "deepest")
      let value = store.value(forKey: "deepest")
      #expect(nestingDepth(value) == PropertyListLimits.nesting)
      #expect(leaf(value) as? String == "leaf")
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

  @Test func storesMadeForOneSuiteShareItsValues() {
    withSuite { suite in
      KeyValueStore.userDefaults(suiteName: suite).set("kept", forKey: "key")
      let other = KeyValueStore.userDefaults(suiteName: suite)
      #expect(other.value(forKey: "key", as: String.self) == "kept")
      other.removeValue(forKey: "key")
      #expect(KeyValueStore.userDefaults(suiteName: suite).value(forKey: "key") == nil)
    }
  }

  @Test func theSameKeyInTwoStoresHoldsTwoValues() {
    let first = KeyValueStore.inMemory()
    let second = KeyValueStore.inMemory()
    first.set("first", forKey: "key")
    second.set("second", forKey: "key")
    #expect(first.value(forKey: "key", as: String.self) == "first")
    #expect(second.value(forKey: "key", as: String.self) == "second")
    withSuite { suiteA in
      withSuite { suiteB in
        let a = KeyValueStore.userDefaults(suiteName: suiteA)
        let b = KeyValueStore.userDefaults(suiteName: suiteB)
        a.set("a", forKey: "key")
        b.set("b", forKey: "key")
        #expect(a.value(forKey: "key", as: String.self) == "a")
        #expect(b.value(forKey: "key", as: String.self) == "b")
        #expect(first.value(forKey: "key", as: String.self) == "first")
        b.removeValue(forKey: "key")
        #expect(a.value(forKey: "key", as: String.self) == "a")
      }
    }
    // A suite whose name extends another's is another suite.
    withSuite { suite in
      let short = KeyValueStore.userDefaults(suiteName: suite)
      let long = KeyValueStore.userDefaults(suiteName: suite + ".plist")
      defer { removeSuiteFile(suite + ".plist") }
      short.set(1, forKey: "key")
      long.set(2, forKey: "key")
      #expect(short.value(forKey: "key", as: Int.self) == 1)
      #expect(long.value(forKey: "key", as: Int.self) == 2)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func manyThreadsWritingDistinctKeysLoseNothing(kind: StoreKind) {
    // The user-defaults store rewrites its file on every change, so it gets fewer writes.
    let writes =
      kind == .inMemory ? stressVolume(full: 5_000, quick: 500) : stressVolume(full: 250, quick: 25)
    let threads = 8
    kind.withStore { store in
      onThreadsBlocking(threads) { thread in
        for index in 0..<writes {
          store.set(index, forKey: "\(thread).\(index)")
          _ = store.value(forKey: "\(thread).\(index / 2)")
          if index.isMultiple(of: 3) { store.removeValue(forKey: "\(thread).\(index)") }
        }
      }
      var found = 0
      for thread in 0..<threads {
        for index in 0..<writes {
          let value = store.value(forKey: "\(thread).\(index)") as? Int
          if value == (index.isMultiple(of: 3) ? nil : index) { found += 1 }
        }
      }
      #expect(found == threads * writes)
    }
  }

  @Test(arguments: StoreKind.allCases)
  func flushWithNothingToWriteSucceeds(kind: StoreKind) throws {
    try kind.withStore { store in
      try store.flush()
      store.set("value", forKey: "key")
      try store.flush()
      try store.flush()
      #expect(store.value(forKey: "key", as: String.self) == "value")
    }
  }

  @Test func theInMemoryStoreWritesNoFile() throws {
    // Other tests write suites of their own meanwhile, all named org.tinyblocks.tests.…, through
    // temporary files (.tinyenvironment-….tmp, and Foundation's own .dat.nosync…).
    func own(_ names: Set<String>) -> Set<String> {
      names.filter {
        !$0.contains("org.tinyblocks.tests.") && !$0.hasPrefix(".tinyenvironment-")
          && !$0.hasPrefix(".dat.nosync")
      }
    }
    let watched = [
      defaultsFolder, FileManager.default.homeDirectoryForCurrentUser,
      URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
    ]
    let before = watched.map { own(entries($0)) }
    let plistsBefore = plistDates(defaultsFolder).filter { !$0.key.contains("org.tinyblocks.") }
    let store = KeyValueStore.inMemory()
    for index in 0..<100 { store.set(["value": index], forKey: "key \(index)") }
    store.removeValue(forKey: "key 0")
    try store.flush()
    #expect(store.value(forKey: "key 1") as? [String: Int] == ["value": 1])
    withWorld(.mock) { Current.storage.set("mock", forKey: "key") }
    #expect(watched.map { own(entries($0)) } == before)
    // No new file, and no existing user-defaults file (the standard one included) written.
    #expect(
      plistDates(defaultsFolder).filter { !$0.key.contains("org.tinyblocks.") } == plistsBefore)
  }

  @Test func aStoreReleasedWithItsLastCopyTakesItsValuesAlong() {
    weak var weakStore: AnyObject?
    do {
      let store = KeyValueStore.inMemory()
      store.set("value", forKey: "key")
      weakStore = Mirror(reflecting: store).children.first?.value as AnyObject
      #expect(weakStore != nil)
    }
    #expect(weakStore == nil)
  }

  @Test(arguments: StoreKind.allCases)
  func aDeinitRunByReplacingTheWorldCanUseItsStore(kind: StoreKind) {
    kind.withStore { store in
      withWorld(.mock) {
        Current.storage = store
        let seen = Recorder<Int?>()
        do {
          let probe = OnDeinit {
            Current.storage.set(1, forKey: "from deinit")
            seen.record(Current.storage.value(forKey: "from deinit", as: Int.self))
            Current.storage.removeValue(forKey: "missing")
            try? Current.storage.flush()
          }
          Current.date = { [probe] in
            _ = probe
            return .distantPast
          }
        }
        Current.date = { .distantPast }  // releases the closure that holds the probe
        #expect(seen.all == [1])
        #expect(store.value(forKey: "from deinit", as: Int.self) == 1)
      }
    }
  }
}
