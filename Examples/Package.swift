// swift-tools-version: 6.0
import PackageDescription

/// A small feed watcher built on TinyBlocks: a library with the app's logic, an executable that
/// runs it against a local server, and the tests that control its world. It uses every block but
/// TinyContext, which is for objects an app does not own: this app owns all of its objects.
let package = Package(
  name: "FeedWatcher",
  platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
  products: [
    .executable(name: "feed-watcher", targets: ["FeedWatcher"])
  ],
  dependencies: [
    .package(name: "TinyBlocks", path: "..")
  ],
  targets: [
    .target(
      name: "FeedKit",
      dependencies: [
        .product(name: "TinyEnvironment", package: "TinyBlocks"),
        .product(name: "TinyObservation", package: "TinyBlocks"),
        .product(name: "TinyScheduling", package: "TinyBlocks"),
        .product(name: "TinySequence", package: "TinyBlocks"),
        .product(name: "TinyWaiting", package: "TinyBlocks"),
      ]
    ),
    .executableTarget(
      name: "FeedWatcher",
      dependencies: [
        "FeedKit",
        .product(name: "TinyEnvironment", package: "TinyBlocks"),
        .product(name: "TinyObservation", package: "TinyBlocks"),
        .product(name: "TinyWaiting", package: "TinyBlocks"),
      ]
    ),
    .testTarget(
      name: "FeedKitTests",
      dependencies: [
        "FeedKit",
        .product(name: "TinyEnvironment", package: "TinyBlocks"),
        .product(name: "TinyObservation", package: "TinyBlocks"),
        .product(name: "TinyScheduling", package: "TinyBlocks"),
        .product(name: "TinyWaiting", package: "TinyBlocks"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
