import Foundation
import Testing
import TinyEnvironment
import TinyTestSupport

/// Both stores, made fresh for each test: the in-memory one, and user defaults in a suite
/// of their own whose file the test removes when it ends.
enum StoreKind: String, CaseIterable, Codable, CustomTestStringConvertible {
  case inMemory
  case userDefaults

  var testDescription: String { rawValue }

  func withStore(_ body: (KeyValueStore) throws -> Void) rethrows {
    switch self {
    case .inMemory:
      try body(.inMemory())
    case .userDefaults:
      try withSuite { suite in try body(.userDefaults(suiteName: suite)) }
    }
  }
}

/// Runs `body` with the name of a new user-defaults suite, and removes the suite's file after.
func withSuite(_ body: (String) throws -> Void) rethrows {
  let suite = newSuiteName()
  defer { removeSuiteFile(suite) }
  try body(suite)
}

/// A suite name no other test uses.
func newSuiteName() -> String {
  "org.tinyblocks.tests.\(UUID().uuidString)"
}

/// The folder of the user's defaults files, by the rule swift-corelibs-foundation's
/// `UserDefaults` follows: `$XDG_CONFIG_HOME` when it is an absolute path, else `~/.config`.
let defaultsFolder: URL = {
  if let configured = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"],
    configured.hasPrefix("/")
  {
    return URL(fileURLWithPath: configured, isDirectory: true)
  }
  return FileManager.default.homeDirectoryForCurrentUser
    .appendingPathComponent(".config", isDirectory: true)
}()

/// The file of the suite `suite` on Linux.
func suiteFile(_ suite: String) -> URL {
  defaultsFolder.appendingPathComponent("\(suite).plist", isDirectory: false)
}

/// Removes the suite's file, or whatever a test put in its place.
func removeSuiteFile(_ suite: String) {
  try? FileManager.default.removeItem(at: suiteFile(suite))
}

/// What the suite's file holds, read without TinyEnvironment; `nil` when there is no file.
func suiteFileContents(_ suite: String) -> [String: Any]? {
  guard let data = try? Data(contentsOf: suiteFile(suite)) else { return nil }
  return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
}

/// The names of the entries directly in `folder`.
func entries(_ folder: URL) -> Set<String> {
  Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
}

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

// MARK: - Values at the edges of their types

/// A string of every kind of character a property list must carry: control characters, NUL,
/// both line endings, characters outside the Basic Multilingual Plane and combining marks.
let oddString = "a\u{0}b\u{1}\u{7F}\r\n\r\t \u{FEFF}é\u{301}😀𝄞\u{10FFFF}"

/// A quarter of a megabyte of text and one of bytes, each byte value included. (Every change
/// rewrites a suite's file, so larger values only make the tests slower.)
let largeString = String(repeating: oddString, count: 13_000)
let largeData = Data((0..<262_144).map { UInt8(truncatingIfNeeded: $0 &* 7) })

/// A date with a fraction of a second that no decimal text of seconds or milliseconds holds.
let preciseDate = Date(timeIntervalSinceReferenceDate: 559_000_000.123_456_789)

/// Stores every edge value under its own key.
func writeEdgeValues(to store: KeyValueStore) {
  store.set(Int.min, forKey: "Int.min")
  store.set(Int.max, forKey: "Int.max")
  store.set(0, forKey: "zero")
  store.set(-0.0, forKey: "-0.0")
  store.set(Double.nan, forKey: "nan")
  store.set(Double.infinity, forKey: "infinity")
  store.set(-Double.infinity, forKey: "-infinity")
  store.set(Double.leastNonzeroMagnitude, forKey: "least")
  store.set(Double.greatestFiniteMagnitude, forKey: "greatest")
  store.set(0.1, forKey: "0.1")
  store.set(1.0, forKey: "1.0")
  store.set(true, forKey: "true")
  store.set(false, forKey: "false")
  store.set("", forKey: "empty string")
  store.set(oddString, forKey: "odd string")
  store.set(Data(), forKey: "empty data")
  store.set(preciseDate, forKey: "precise date")
  store.set(Date.distantPast, forKey: "distant past")
  store.set(Date.distantFuture, forKey: "distant future")
  store.set([true, false], forKey: "bools")
  store.set([Int.min, 0, Int.max], forKey: "ints")
  store.set([-0.0, .nan, 1], forKey: "doubles")
  store.set([Data](), forKey: "empty array")
  store.set([String: Int](), forKey: "empty dictionary")
  store.set(["": 1, oddString: 2], forKey: "odd keys")
  store.set("under an odd key", forKey: oddString)
  store.set("under an empty key", forKey: "")
  store.set(nested(PropertyListLimits.nesting, 7), forKey: "deepest array")
}

/// Stores a large string and large data (apart from the other edge values: each change
/// rewrites a suite's whole file, so every change after them would write them again).
func writeLargeValues(to store: KeyValueStore) {
  store.set(largeString, forKey: "large string")
  store.set(largeData, forKey: "large data")
}

/// The edge values `store` does not hand back exactly as `writeEdgeValues(to:)` stored them.
func edgeValueMismatches(in store: KeyValueStore) -> [String] {
  var wrong: [String] = []
  func check(_ key: String, _ isRight: ((any Sendable)?) -> Bool) {
    if !isRight(store.value(forKey: key)) { wrong.append(key) }
  }
  func bits(_ value: (any Sendable)?) -> UInt64? { (value as? Double)?.bitPattern }
  check("Int.min") { $0 as? Int == Int.min }
  check("Int.max") { $0 as? Int == Int.max }
  check("zero") { $0 as? Int == 0 && !($0 is Bool) && !($0 is Double) }
  check("-0.0") { bits($0) == (-0.0).bitPattern }
  check("nan") { ($0 as? Double)?.isNaN == true }
  check("infinity") { $0 as? Double == .infinity }
  check("-infinity") { $0 as? Double == -.infinity }
  check("least") { bits($0) == Double.leastNonzeroMagnitude.bitPattern }
  check("greatest") { $0 as? Double == .greatestFiniteMagnitude }
  check("0.1") { bits($0) == (0.1).bitPattern }
  check("1.0") { $0 as? Double == 1.0 && !($0 is Int) }
  check("true") { $0 as? Bool == true && !($0 is Int) }
  check("false") { $0 as? Bool == false && !($0 is Int) }
  check("empty string") { $0 as? String == "" }
  check("odd string") { $0 as? String == oddString }
  check("empty data") { $0 as? Data == Data() }
  check("precise date") {
    ($0 as? Date)?.timeIntervalSinceReferenceDate.bitPattern
      == preciseDate.timeIntervalSinceReferenceDate.bitPattern
  }
  check("distant past") { $0 as? Date == .distantPast }
  check("distant future") { $0 as? Date == .distantFuture }
  check("bools") { $0 as? [Bool] == [true, false] && ($0 as? [any Sendable])?.first is Bool }
  check("ints") { $0 as? [Int] == [Int.min, 0, Int.max] }
  check("doubles") {
    guard let doubles = $0 as? [Double], doubles.count == 3 else { return false }
    return doubles[0].bitPattern == (-0.0).bitPattern && doubles[1].isNaN && doubles[2] == 1
  }
  check("empty array") { ($0 as? [any Sendable])?.isEmpty == true }
  check("empty dictionary") { ($0 as? [String: any Sendable])?.isEmpty == true }
  check("odd keys") { $0 as? [String: Int] == ["": 1, oddString: 2] }
  check(oddString) { $0 as? String == "under an odd key" }
  check("") { $0 as? String == "under an empty key" }
  check("deepest array") { nestingDepth($0) == PropertyListLimits.nesting && leaf($0) as? Int == 7 }
  return wrong
}

/// The large values `store` does not hand back exactly as `writeLargeValues(to:)` stored them.
func largeValueMismatches(in store: KeyValueStore) -> [String] {
  var wrong: [String] = []
  if store.value(forKey: "large string") as? String != largeString { wrong.append("string") }
  if store.value(forKey: "large data") as? Data != largeData { wrong.append("data") }
  return wrong
}

/// The documented limits of the stores.
enum PropertyListLimits {
  /// The deepest nesting of arrays and dictionaries a store accepts.
  static let nesting = 256
}

/// `value` wrapped in `levels` arrays, typed as the nested arrays it is (`[[[Int]]]`).
func nested<Value: PropertyListValue>(_ levels: Int, _ value: Value) -> any PropertyListValue {
  levels == 0 ? value : nested(levels - 1, [value])
}

/// `value` wrapped in `levels` one-entry dictionaries under the key `"k"`.
func nestedDictionary<Value: PropertyListValue>(_ levels: Int, _ value: Value)
  -> any PropertyListValue
{
  levels == 0 ? value : nestedDictionary(levels - 1, ["k": value])
}

/// How many arrays and dictionaries enclose the innermost value, following the first element.
func nestingDepth(_ value: (any Sendable)?) -> Int {
  var depth = 0
  var current = value
  while true {
    if let array = current as? [any Sendable], let first = array.first {
      current = first
    } else if let dictionary = current as? [String: any Sendable], let first = dictionary.first {
      current = first.value
    } else {
      return depth
    }
    depth += 1
  }
}

/// The innermost value, following the first element of each array and dictionary.
func leaf(_ value: (any Sendable)?) -> (any Sendable)? {
  var current = value
  while true {
    if let array = current as? [any Sendable], let first = array.first {
      current = first
    } else if let dictionary = current as? [String: any Sendable], let first = dictionary.first {
      current = first.value
    } else {
      return current
    }
  }
}
