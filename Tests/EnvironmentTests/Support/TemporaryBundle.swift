import Foundation
import Testing
import TinyTestSupport

/// Makes a bundle in a new temporary folder: one `<language>.lproj` folder per entry of
/// `tables`, each with the `.strings` tables given, and an `Info.plist` naming the development
/// language when one is given.
///
/// ```swift
/// let bundle = try temporaryBundle(["es": ["Localizable": ["greeting": "Hola"]]])
/// ```
func temporaryBundle(
  _ localizations: [String: [String: [String: String]]],
  developmentLanguage: String? = nil
) throws -> Bundle {
  let folder = URL(fileURLWithPath: NSTemporaryDirectory())
    .appendingPathComponent("tinyblocks-\(UUID().uuidString).bundle")
  let files = FileManager.default
  try files.createDirectory(at: folder, withIntermediateDirectories: true)
  for (language, tables) in localizations {
    let lproj = folder.appendingPathComponent("\(language).lproj")
    try files.createDirectory(at: lproj, withIntermediateDirectories: true)
    for (table, strings) in tables {
      let lines = strings.sorted { $0.key < $1.key }.map { "\"\($0.key)\" = \"\($0.value)\";" }
      try lines.joined(separator: "\n").write(
        to: lproj.appendingPathComponent("\(table).strings"), atomically: true, encoding: .utf8)
    }
  }
  if let developmentLanguage {
    let info: [String: Any] = [
      "CFBundleDevelopmentRegion": developmentLanguage,
      "CFBundleIdentifier": "org.tinyblocks.tests.\(UUID().uuidString)",
    ]
    let data = try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0)
    try data.write(to: folder.appendingPathComponent("Info.plist"))
  }
  return try #require(Bundle(path: folder.path))
}
