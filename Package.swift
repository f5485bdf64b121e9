// swift-tools-version: 6.0
// The persistence toolkit: one package, one library product per module.
// The module graph and the edges it allows are written down in Docs/Architecture.md.
import PackageDescription
import CompilerPluginSupport

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

let libraries = ["PlistCodec", "FileStorageKit", "ModelPersistence"]

let package = Package(
    name: "persistence-toolkit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: libraries.map { .library(name: $0, targets: [$0]) }
        + [.executable(name: "tour", targets: ["tour"]), .executable(name: "profile", targets: ["profile"])],
    dependencies: [
        // Macros (`@PersistedModel`); see Docs/Architecture.md for why each dependency is here.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // Command-line parsing and help for the sample apps.
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        module("PlistCodec"),
        module("FileStorageKit", dependencies: ["PlistCodec"]),
        .macro(name: "ModelPersistenceMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/ModelPersistenceMacros"),
        module("ModelPersistence", dependencies: ["ModelPersistenceMacros", "FileStorageKit", "PlistCodec"]),
        app("tour", dependencies: ["PlistCodec", "FileStorageKit", "ModelPersistence"]),
        app("profile", dependencies: ["ModelPersistence", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .target(name: "TestSupport", dependencies: ["PlistCodec"], path: "Tests/TestSupport"),
        tests("PlistCodecTests", dependencies: ["PlistCodec", "TestSupport"]),
        tests("FileStorageKitTests", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceTests", dependencies: ["ModelPersistence", "FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceMacrosTests", dependencies: [
            "ModelPersistenceMacros",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        // A child process the FileStorageKit tests start (built by `ci/test` before the tests run).
        .executableTarget(name: "storage-probe", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"],
                         path: "Tests/StorageProbe"),
        // A child process the ModelPersistence tests start.
        .executableTarget(name: "model-probe", dependencies: ["ModelPersistence", "TestSupport"], path: "Tests/ModelProbe"),
    ],
    swiftLanguageModes: [.v6]
)
