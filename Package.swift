// swift-tools-version: 6.0
import PackageDescription

/// One row per block: its folder under `Sources/` and `Tests/` (the module is `Tiny<folder>`),
/// and the other blocks its tests may use. Adding a block is adding a row.
let blocks: [(folder: String, testsAlsoUse: [String])] = [
  ("Sequence", []),
  ("Context", []),
  ("Observation", []),
  ("Waiting", []),
  ("Scheduling", ["Waiting"]),
  ("Environment", []),
]

let modules = blocks.map { "Tiny\($0.folder)" }

/// What every block shares (the lock, the release trampoline, duration conversions, the
/// main-queue probe), with `package` access: a target, not a product, so a client that uses one
/// block gets that block and this target only.
let internals = "TinyInternals"

let package = Package(
  name: "TinyBlocks",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: modules.map { .library(name: $0, targets: [$0]) } + [
    .executable(name: "tour", targets: ["Tour"])
  ],
  targets: blocks.flatMap { block -> [Target] in
    let module = "Tiny\(block.folder)"
    return [
      .target(
        name: module, dependencies: [.target(name: internals)], path: "Sources/\(block.folder)"),
      .testTarget(
        name: "\(module)Tests",
        dependencies: [.target(name: module), .target(name: internals), "TinyTestSupport"]
          + block.testsAlsoUse.map { .target(name: "Tiny\($0)") },
        path: "Tests/\(block.folder)Tests"
      ),
    ]
  } + [
    .target(name: internals, path: "Sources/Internals"),
    // A guided, real run of every block: `swift run tour`.
    .executableTarget(
      name: "Tour",
      dependencies: modules.map { .target(name: $0) },
      path: "Sources/Tour"
    ),
    // Helpers every test target shares (recorders, gates, threads); not a product.
    .target(
      name: "TinyTestSupport", dependencies: [.target(name: internals)], path: "Tests/Support"),
    // Cross-block checks, such as importing every block next to the toolchain's modules.
    .testTarget(
      name: "TinyBlocksTests",
      dependencies: modules.map { .target(name: $0) } + [
        "TinyTestSupport", .target(name: internals),
      ],
      path: "Tests/TinyBlocksTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)
