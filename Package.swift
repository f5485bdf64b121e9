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

let libraries = ["PlistCodec", "FileStorageKit", "ModelPersistence", "CollectionStore", "StateGraph", "ManagedStorage",
                 "DocumentStore", "DocumentSync"]
let apps = ["tour", "profile", "flashcards", "settings", "plist", "orders", "shapes"]

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")

let package = Package(
    name: "persistence-toolkit",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: libraries.map { .library(name: $0, targets: [$0]) }
        + apps.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        // Macros (`@PersistedModel`); see Docs/Architecture.md for why each dependency is here.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // Command-line parsing and help for the sample apps.
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        // SQLite (WAL, a pool of readers beside one writer) for ManagedStorage.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // SHA-256 for DocumentStore's revision digests (the same digest in every process and on every platform).
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        // A PostgreSQL client for DocumentSync only (replication through a server).
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        module("PlistCodec"),
        module("FileStorageKit", dependencies: ["PlistCodec"]),
        .macro(name: "ModelPersistenceMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/ModelPersistenceMacros"),
        module("ModelPersistence", dependencies: ["ModelPersistenceMacros", "FileStorageKit", "PlistCodec"]),
        module("CollectionStore", dependencies: ["FileStorageKit", "PlistCodec"]),
        .macro(name: "StateGraphMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/StateGraphMacros"),
        module("StateGraph", dependencies: ["StateGraphMacros", "FileStorageKit", "PlistCodec"]),
        .macro(name: "ManagedStorageMacros", dependencies: [
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/ManagedStorageMacros"),
        module("ManagedStorage", dependencies: ["ManagedStorageMacros", "FileStorageKit", grdb,
                                                .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        module("DocumentStore", dependencies: ["FileStorageKit", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift"),
                                               .product(name: "Crypto", package: "swift-crypto")]),
        module("DocumentSync", dependencies: ["DocumentStore", .product(name: "PostgresNIO", package: "postgres-nio"),
                                              .product(name: "Crypto", package: "swift-crypto")]),
        // The `plist` command's implementation, a library so the tour and the tests can call it in-process.
        .target(name: "PlistTool", dependencies: ["PlistCodec"], path: "Apps/plist/PlistTool"),
        app("tour", dependencies: ["PlistCodec", "FileStorageKit", "ModelPersistence", "CollectionStore", "StateGraph", "ManagedStorage",
                                   "OrdersKit", "PlistTool", "DocumentStore", "ShapesKit", "DocumentSync"]),
        app("profile", dependencies: ["ModelPersistence", argumentParser]),
        app("flashcards", dependencies: ["CollectionStore", argumentParser]),
        app("settings", dependencies: ["StateGraph", argumentParser]),
        // The `orders` command's implementation, a library so the tour can run it in-process and as a second process.
        .target(name: "OrdersKit", dependencies: ["ManagedStorage", "FileStorageKit", argumentParser], path: "Apps/orders/OrdersKit"),
        .executableTarget(name: "orders", dependencies: ["OrdersKit"], path: "Apps/orders/Command"),
        .executableTarget(name: "plist", dependencies: ["PlistTool"], path: "Apps/plist/Command"),
        // The `shapes` command's implementation, a library so the tour can run it in-process and as a second process.
        .target(name: "ShapesKit", dependencies: ["DocumentStore", "DocumentSync", "FileStorageKit", argumentParser], path: "Apps/shapes/ShapesKit"),
        .executableTarget(name: "shapes", dependencies: ["ShapesKit"], path: "Apps/shapes/Command"),
        .target(name: "TestSupport", dependencies: ["PlistCodec"], path: "Tests/TestSupport"),
        tests("PlistCodecTests", dependencies: ["PlistCodec", "TestSupport"]),
        tests("FileStorageKitTests", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceTests", dependencies: ["ModelPersistence", "FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceMacrosTests", dependencies: [
            "ModelPersistenceMacros",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        tests("CollectionStoreTests", dependencies: ["CollectionStore", "FileStorageKit", "PlistCodec", "TestSupport"]),
        // Entities shared by ManagedStorage's tests and its probe.
        .target(name: "ManagedTestModel", dependencies: ["ManagedStorage"], path: "Tests/ManagedTestModel"),
        tests("ManagedStorageTests", dependencies: ["ManagedStorage", "ManagedTestModel", "TestSupport", grdb]),
        tests("ManagedStorageMacrosTests", dependencies: [
            "ManagedStorageMacros",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        tests("StateGraphTests", dependencies: ["StateGraph", "FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("StateGraphMacrosTests", dependencies: [
            "StateGraphMacros",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        tests("ShapesAppTests", dependencies: ["ShapesKit", "DocumentStore", "TestSupport"]),
        // End-to-end tests of the `plist` binary against golden files in Fixtures/Apps/plist.
        tests("PlistToolTests", dependencies: ["PlistTool", "PlistCodec", "TestSupport"]),
        // A child process the FileStorageKit tests start (built by `ci/test` before the tests run).
        .executableTarget(name: "storage-probe", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"],
                         path: "Tests/StorageProbe"),
        // A child process the ModelPersistence tests start.
        .executableTarget(name: "model-probe", dependencies: ["ModelPersistence", "TestSupport"], path: "Tests/ModelProbe"),
        // The Foundation side of DefaultsSuite's differential test against `UserDefaults`.
        .executableTarget(name: "defaults-oracle", dependencies: ["TestSupport"], path: "Tests/DefaultsOracle"),
        // A child process the ManagedStorage tests start.
        .executableTarget(name: "managed-probe", dependencies: ["ManagedStorage", "ManagedTestModel", "TestSupport"], path: "Tests/ManagedProbe"),
        // Dali's classes and other documents shared by DocumentStore's tests and its probe.
        .target(name: "DocumentTestModel", dependencies: ["DocumentStore"], path: "Tests/DocumentTestModel"),
        tests("DocumentStoreTests", dependencies: ["DocumentStore", "DocumentTestModel", "TestSupport", grdb,
                                                   .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // A child process the DocumentStore tests start.
        .executableTarget(name: "document-probe", dependencies: ["DocumentStore", "DocumentTestModel", "TestSupport"], path: "Tests/DocumentProbe"),
        tests("DocumentSyncTests", dependencies: ["DocumentSync", "DocumentStore", "DocumentTestModel", "TestSupport",
                                                  .product(name: "PostgresNIO", package: "postgres-nio")]),
        // A replicator the DocumentSync tests start and kill.
        .executableTarget(name: "sync-probe", dependencies: ["DocumentSync", "DocumentStore", "DocumentTestModel", "TestSupport"], path: "Tests/SyncProbe"),
        // A child process the CollectionStore tests start.
        // Blocks the cooperative pool and waits for other processes' changes (FileStorageKitTests' PoolBlockedTests).
        .executableTarget(name: "pool-probe", dependencies: ["FileStorageKit", "ModelPersistence", "CollectionStore"],
                          path: "Tests/PoolProbe"),
        .executableTarget(name: "collection-probe", dependencies: ["CollectionStore", "TestSupport"], path: "Tests/CollectionProbe"),
    ],
    swiftLanguageModes: [.v6]
)
