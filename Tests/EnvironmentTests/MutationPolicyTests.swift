import Foundation
import Testing
import TinyTestSupport

/// Runs `.ci/check-current-assignments`, the mutation policy's check, on sample app code.
@Suite(.timeLimit(suiteTimeLimit), .watchdog) struct MutationPolicyTests {
  static let script = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(".ci/check-current-assignments")

  /// Writes `files` (relative path → contents) under a new folder, runs the check on it, and
  /// returns its exit status and the line numbers it flagged per file name.
  func check(_ files: [String: String]) throws -> (status: Int32, flagged: [String: [Int]]) {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("tinyblocks-policy-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    for (path, contents) in files {
      let file = folder.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try contents.write(to: file, atomically: true, encoding: .utf8)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["bash", Self.script.path, folder.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var flagged: [String: [Int]] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
    where line.contains(": assignment to Current outside tests") {
      let parts = line.split(separator: ":")
      let name = URL(fileURLWithPath: String(parts[0])).lastPathComponent
      flagged[name, default: []].append(Int(parts[1]) ?? -1)
    }
    return (process.terminationStatus, flagged)
  }

  @Test func flagsAssignmentsInAppCode() throws {
    let app = """
      let now = Current.date()
      Current = .mock
      Current.date = { .distantPast }
        Current . locale=Locale(identifier: "es")
      Current[APIKey.self] = .live
      Current.preferredLanguages += ["fr"]
      try Current.setLocale(identifier: "es")
      configure(&Current)
      Current.api.track = { _ in }
      Current.clock = ImmediateClock()
      Current . clock=ContinuousClock()
      let elapsed = Current.clock.measure { work() }
      """
    let (status, flagged) = try check(["App/Model.swift": app])
    #expect(status == 1)
    #expect(flagged["Model.swift"] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  }

  @Test func readsCommentsStringsAndTestsAreFine() throws {
    let app = """
      let now = Current.date()
      if Current.preferredLanguages == ["en"] {}
      if Current.locale != other {}
      let world = Current
      print("Current.date = nothing")
      // Current = .mock
      /// Current.date = { .distantPast }
      Current = .live  // allow-current-assignment
      let later = Current.date() >= now
      myCurrent = 3
      model.Current = 3
      Current.storage.set(1, forKey: "launches")
      """
    let test = "Current = .mock\nCurrent.date = { .distantPast }\n"
    let (status, flagged) = try check([
      "App/Model.swift": app, "AppTests/ModelTests.swift": test, "App/LoginTests.swift": test,
      "Tests/Support/Helpers.swift": test, ".build/checkouts/Other.swift": test,
    ])
    #expect(status == 0)
    #expect(flagged.isEmpty)
  }

  @Test func thisRepositorysSourcesFollowThePolicy() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["bash", Self.script.path]
    process.currentDirectoryURL = Self.script.deletingLastPathComponent()
      .deletingLastPathComponent()
    process.standardOutput = Pipe()
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
  }
}
