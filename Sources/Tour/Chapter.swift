import Foundation

/// One block's part of the tour: a title, a sentence on the problem it solves, and real work.
struct Chapter: Sendable {
  let title: String
  let problem: String
  let run: @Sendable () async throws -> Void
}

/// Prints the chapters in order, each under a header, and reports what failed.
enum Tour {
  static func run(_ chapters: [Chapter]) async {
    print("TinyBlocks tour: \(counted(chapters.count, "chapter"))\n")
    var failures = 0
    for (number, chapter) in chapters.enumerated() {
      print("━━ \(number + 1). \(chapter.title) ━━")
      print(chapter.problem, terminator: "\n\n")
      do {
        try await chapter.run()
      } catch {
        failures += 1
        print("  ✗ chapter failed: \(error)")
      }
      print()
    }
    if failures > 0 {
      print("\(counted(failures, "chapter")) failed.")
      exit(1)
    }
    print("Done.")
  }
}

/// "1 chapter", "6 chapters".
func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// Prints a line of code next to what it produced (`code  → result`), or under it when the
/// code is long.
func show(_ code: String, _ result: Any, width: Int = 48) {
  if code.count < width {
    print("  \(code)\(String(repeating: " ", count: width - code.count))→ \(result)")
  } else {
    print("  \(code)\n  \(String(repeating: " ", count: width))→ \(result)")
  }
}

/// Prints an explanatory line in the tour's voice.
func say(_ text: String) {
  print(text.isEmpty ? "" : "  \(text)")
}
