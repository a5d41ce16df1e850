// swift-tools-version: 6.1
// Benchmarks for TinyBlocks, kept in their own package so the library has no dependencies.
// Run from this folder: `swift package benchmark` (see ../Docs/Performance.md).
import PackageDescription

// The root package's identity is its folder's name, whatever the clone is called.
let root = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "TinyBlocks")

/// One benchmark executable per block: `Benchmarks/<Block>Benchmarks/`.
let suites: [(block: String, peers: [Target.Dependency])] = [
  ("Sequence", [.product(name: "Algorithms", package: "swift-algorithms")]),
  ("Context", ["ContextFloor"]),
  ("Observation", [.product(name: "OpenCombine", package: "OpenCombine"), "ObservationFloor"]),
  (
    "Waiting",
    [
      .product(name: "OpenCombine", package: "OpenCombine"), "WaitingFloor",
      "WaitingLatencySupport",
    ]
  ),
  (
    "Scheduling",
    [
      .product(name: "OpenCombine", package: "OpenCombine"),
      .product(name: "OpenCombineDispatch", package: "OpenCombine"),
      .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
      .product(name: "CombineSchedulers", package: "combine-schedulers"),
    ]
  ),
  (
    "Environment",
    [
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "Clocks", package: "swift-clocks"),
    ]
  ),
]

let package = Package(
  name: "TinyBlocksBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/apple/swift-algorithms", exact: "1.2.1"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", exact: "1.17.1"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", exact: "1.1.1"),
    .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    .package(url: "https://github.com/apple/swift-async-algorithms", exact: "1.1.4"),
    .package(url: "https://github.com/pointfreeco/combine-schedulers", exact: "1.2.2"),
  ],
  targets: [
    .target(
      name: "BenchmarkSupport",
      dependencies: [.product(name: "Benchmark", package: "benchmark")],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The hand-written floor of the Observation set benchmarks, which two programs share.
    .target(name: "ObservationFloor", swiftSettings: [.swiftLanguageMode(.v6)]),
    // The hand-written floors of the Promise chain and the Context read benchmarks, which the
    // suites and the instruction counters share.
    .target(name: "WaitingFloor", swiftSettings: [.swiftLanguageMode(.v6)]),
    .target(name: "ContextFloor", swiftSettings: [.swiftLanguageMode(.v6)]),
    // The command line of the instruction-count tools.
    .target(name: "InstructionsSupport", swiftSettings: [.swiftLanguageMode(.v6)]),
    // What the wake-latency measurements share, off the main thread and on it.
    .target(name: "WaitingLatencySupport", swiftSettings: [.swiftLanguageMode(.v6)]),
  ] + suites.map { suite in
    .executableTarget(
      name: "\(suite.block)Benchmarks",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Tiny\(suite.block)", package: root),
      ] + suite.peers,
      path: "Benchmarks/\(suite.block)Benchmarks",
      // Every loop starts on a 64-byte boundary, so that where the linker happens to place a
      // loop does not pass for a difference between two variants.
      swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-Xllvm", "-align-loops=64"])],
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
  } + [
    // Instruction counts of an atom's update and set beside the same work written by hand, for
    // `valgrind --tool=callgrind` (see the file's header).
    .executableTarget(
      name: "ObservationInstructions",
      dependencies: [
        .product(name: "TinyObservation", package: root), "ObservationFloor", "InstructionsSupport",
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The same for the goal rows of Promise chains and awaits, and of Context reads.
    .executableTarget(
      name: "WaitingInstructions",
      dependencies: [
        .product(name: "TinyWaiting", package: root), "WaitingFloor", "InstructionsSupport",
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    .executableTarget(
      name: "ContextInstructions",
      dependencies: [.product(name: "TinyContext", package: root), "ContextFloor"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // Wake latency on the main thread, where XCTest waits: a plain program, because benchmark
    // bodies run off the main thread. `swift run -c release WaitingMainThreadLatency`.
    .executableTarget(
      name: "WaitingMainThreadLatency",
      dependencies: [.product(name: "TinyWaiting", package: root), "WaitingLatencySupport"],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
    // The same clock-driven tests, 1,000 times under load, on `ManualClock` and on swift-clocks'
    // `TestClock`: how many went wrong. `swift run -c release EnvironmentClockFlakes [runs]`.
    .executableTarget(
      name: "EnvironmentClockFlakes",
      dependencies: [
        .product(name: "TinyEnvironment", package: root),
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      swiftSettings: [.swiftLanguageMode(.v6)]
    ),
  ]
)
