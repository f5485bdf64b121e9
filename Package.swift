// swift-tools-version: 6.0
// The persistence toolkit: one package, one library product per module.
// The module graph and the edges it allows are written down in Docs/Architecture.md.
import PackageDescription

/// Every library target lives in `Modules/<name>`; every app in `Apps/<command>`.
func module(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Modules/\(name)")
}

func app(_ command: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: command, dependencies: dependencies, path: "Apps/\(command)",
                      exclude: ["README.md"])
}

func tests(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)")
}

let libraries = ["PlistCodec", "FileStorageKit"]

let package = Package(
    name: "persistence-toolkit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: libraries.map { .library(name: $0, targets: [$0]) }
        + [.executable(name: "tour", targets: ["tour"])],
    targets: [
        module("PlistCodec"),
        module("FileStorageKit", dependencies: ["PlistCodec"]),
        app("tour", dependencies: ["PlistCodec", "FileStorageKit"]),
        .target(name: "TestSupport", dependencies: ["PlistCodec"], path: "Tests/TestSupport"),
        tests("PlistCodecTests", dependencies: ["PlistCodec", "TestSupport"]),
        tests("FileStorageKitTests", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"]),
        // A child process the FileStorageKit tests start (built by `ci/test` before the tests run).
        .executableTarget(name: "storage-probe", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"],
                         path: "Tests/StorageProbe"),
    ],
    swiftLanguageModes: [.v6]
)
