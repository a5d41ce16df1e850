// Fails when a public symbol has no doc comment. Reads the symbol graphs the compiler wrote
// (`-emit-symbol-graph`), so it also sees what swift-format's
// AllPublicDeclarationsHaveDocumentation cannot: protocol requirements and enum cases.
//
// Usage: swiftc .ci/check-docs.swift -o <tool> && <tool> <symbol-graph-dir> <module>...

import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let directory = arguments.first, arguments.count > 1 else {
  print("usage: check-docs <symbol-graph-dir> <module>...")
  exit(2)
}
let modules = Set(arguments.dropFirst())

var checked = 0
var missing: [String] = []
guard let listing = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
  print("check-docs: no symbol graphs at \(directory); build with -emit-symbol-graph first")
  exit(2)
}
let files = listing
  .filter { $0.hasSuffix(".symbols.json") }
  .filter { modules.contains(String($0.prefix { $0 != "." && $0 != "@" })) }
  .sorted()
for file in files {
  let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
  let graph = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  for case let symbol as [String: Any] in graph["symbols"] as? [Any] ?? [] {
    let access = symbol["accessLevel"] as? String ?? ""
    let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? ""
    let precise = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
    guard access == "public" || access == "open", kind != "swift.extension",
      !precise.contains("::SYNTHESIZED::")
    else { continue }
    checked += 1
    let lines = (symbol["docComment"] as? [String: Any])?["lines"] as? [[String: Any]] ?? []
    let text = lines.compactMap { $0["text"] as? String }.joined().trimmingCharacters(in: .whitespaces)
    if text.isEmpty {
      let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
      let location = symbol["location"] as? [String: Any]
      let uri = (location?["uri"] as? String ?? "").replacingOccurrences(of: "file://", with: "")
      let line = ((location?["position"] as? [String: Any])?["line"] as? Int ?? -1) + 1
      missing.append("\(uri):\(line): public \(kind.replacingOccurrences(of: "swift.", with: "")) \(path) has no doc comment")
    }
  }
}
for entry in missing.sorted() {
  print(entry)
}
print("\(checked) public symbols in \(modules.sorted().joined(separator: ", ")); \(missing.count) without a doc comment")
exit(missing.isEmpty && checked > 0 ? 0 : 1)
