// swift-tools-version: 6.0
// The persistence toolkit: one package, one library product per module.
// The module graph and the edges it allows are written down in Docs/Architecture.md.
import PackageDescription
import CompilerPluginSupport

/// Every library target lives in `Modules/<name>`; every app in `Apps/<command>`.
func module(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(name: name, dependencies: dependencies, path: "Modules/\(name)")
}

/// An app: its implementation in a library, `Apps/<command>/<kit>`, so the tour and the tests run it
/// in-process, and the executable `<command>`, `Apps/<command>/Command/main.swift`, one line that runs it.
func app(_ command: String, kit: String, dependencies: [Target.Dependency]) -> [Target] {
    [.target(name: kit, dependencies: dependencies, path: "Apps/\(command)/\(kit)"),
     .executableTarget(name: command, dependencies: [.target(name: kit)], path: "Apps/\(command)/Command")]
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
        // `swift package generate-documentation` / `preview-documentation` for the DocC catalogs (a command
        // plugin: built only when one of its commands runs, linked into nothing; ci/docs does not need it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
    ],
    targets: [
        module("PlistCodec"),
        module("FileStorageKit", dependencies: ["PlistCodec"]),
        // The syntax helpers the three macro plug-ins share (attributes, modifiers, stored properties,
        // literals): an internal target, no product, linked only into the plug-ins.
        .target(name: "MacroSupport", dependencies: [.product(name: "SwiftSyntax", package: "swift-syntax")],
                path: "Modules/MacroSupport"),
        .macro(name: "ModelPersistenceMacros", dependencies: [
            "MacroSupport",
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/ModelPersistenceMacros"),
        module("ModelPersistence", dependencies: ["ModelPersistenceMacros", "FileStorageKit", "PlistCodec"]),
        module("CollectionStore", dependencies: ["FileStorageKit", "PlistCodec"]),
        .macro(name: "StateGraphMacros", dependencies: [
            "MacroSupport",
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/StateGraphMacros"),
        module("StateGraph", dependencies: ["StateGraphMacros", "FileStorageKit", "PlistCodec"]),
        .macro(name: "ManagedStorageMacros", dependencies: [
            "MacroSupport",
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
        ], path: "Modules/ManagedStorageMacros"),
        // What both SQLite stores share (an internal target, not a product): see Docs/Architecture.md.
        module("SQLiteSupport", dependencies: ["FileStorageKit", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        module("ManagedStorage", dependencies: ["ManagedStorageMacros", "FileStorageKit", "SQLiteSupport", grdb,
                                                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                                                .product(name: "Crypto", package: "swift-crypto")]),
        module("DocumentStore", dependencies: ["FileStorageKit", "SQLiteSupport", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift"),
                                               .product(name: "Crypto", package: "swift-crypto")]),
        module("DocumentSync", dependencies: ["DocumentStore", .product(name: "PostgresNIO", package: "postgres-nio"),
                                              .product(name: "Crypto", package: "swift-crypto")]),
        // What every app's commands share: streams a caller hands in, the runner, time limits.
        .target(name: "CommandSupport", dependencies: [argumentParser], path: "Apps/CommandSupport"),
        // The settings models of swift-state-graph's article, shared by the `settings` app and StateGraph's tests.
        .target(name: "SettingsModels", dependencies: ["StateGraph"], path: "Apps/settings/SettingsModels"),
    ]
    + app("tour", kit: "TourKit", dependencies: ["PlistCodec", "FileStorageKit", "ModelPersistence", "CollectionStore", "StateGraph",
                                                "ManagedStorage", "OrdersKit", "PlistTool", "DocumentStore", "ShapesKit", "DocumentSync",
                                                "CommandSupport"])
    + app("profile", kit: "ProfileKit", dependencies: ["ModelPersistence", "CommandSupport", argumentParser])
    + app("flashcards", kit: "FlashcardsKit", dependencies: ["CollectionStore", "CommandSupport", argumentParser])
    + app("settings", kit: "SettingsKit", dependencies: ["SettingsModels", "StateGraph", "CommandSupport", argumentParser])
    + app("plist", kit: "PlistTool", dependencies: ["PlistCodec"])
    + app("orders", kit: "OrdersKit", dependencies: ["ManagedStorage", "FileStorageKit", "CommandSupport", argumentParser])
    + app("shapes", kit: "ShapesKit", dependencies: ["DocumentStore", "DocumentSync", "FileStorageKit", "CommandSupport", argumentParser])
    + [
        .target(name: "TestSupport", dependencies: ["PlistCodec"], path: "Tests/TestSupport"),
        // The macro plug-ins' expansion tests share `expectMacroExpansion`; kept out of TestSupport, which
        // every probe links, so that swift-syntax stays in the macro tests.
        .target(name: "MacroTestSupport", dependencies: [
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ], path: "Tests/MacroTestSupport"),
        tests("MacroSupportTests", dependencies: ["MacroSupport", .product(name: "SwiftParser", package: "swift-syntax"),
                                                  .product(name: "SwiftSyntax", package: "swift-syntax")]),
        tests("PlistCodecTests", dependencies: ["PlistCodec", "TestSupport"]),
        tests("FileStorageKitTests", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceTests", dependencies: ["ModelPersistence", "FileStorageKit", "PlistCodec", "TestSupport"]),
        // DocumentData's documented examples (README, DocC, its tests' models), compiled as published.
        tests("DocumentDataExamplesTests", dependencies: ["ModelPersistence", "PlistCodec", "TestSupport"]),
        tests("ModelPersistenceMacrosTests", dependencies: [
            "ModelPersistenceMacros", "MacroTestSupport",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        // Power cuts on lazyfs (issue 34): every store's writer probe, cut, and its store read back.
        tests("PowerCutTests", dependencies: ["FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("CollectionStoreTests", dependencies: ["CollectionStore", "FileStorageKit", "PlistCodec", "TestSupport"]),
        // Entities shared by ManagedStorage's tests and its probe.
        .target(name: "ManagedTestModel", dependencies: ["ManagedStorage"], path: "Tests/ManagedTestModel"),
        tests("ManagedStorageTests", dependencies: ["ManagedStorage", "ManagedTestModel", "FileStorageKit", "TestSupport", grdb]),
        // WooCommerce's documented examples (its Storage tests' stacks, its stores' derived-storage
        // pattern, ResultsController+UIKit), compiled with the changes their comments give.
        tests("SQLiteStoreFaultTests", dependencies: ["SQLiteSupport", "ManagedStorage", "ManagedTestModel", "DocumentStore",
                                                     "DocumentTestModel", "TestSupport", grdb]),
        tests("WooCommerceExamplesTests", dependencies: ["ManagedStorage", "ManagedTestModel", "TestSupport"]),
        tests("ManagedStorageMacrosTests", dependencies: [
            "ManagedStorageMacros", "MacroTestSupport",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        tests("StateGraphTests", dependencies: ["StateGraph", "SettingsModels", "FileStorageKit", "PlistCodec", "TestSupport"]),
        tests("StateGraphMacrosTests", dependencies: [
            "StateGraphMacros", "MacroTestSupport",
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        // Every app's commands, run in-process (and a few as the built programs), and the tour's helpers.
        tests("AppTests", dependencies: ["ProfileKit", "FlashcardsKit", "SettingsKit", "SettingsModels", "PlistTool", "OrdersKit",
                                         "ShapesKit", "TourKit", "CommandSupport", "PlistCodec", "StateGraph", "DocumentStore",
                                         "TestSupport", argumentParser]),
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
        .target(name: "DocumentTestModel", dependencies: ["DocumentStore", grdb], path: "Tests/DocumentTestModel"),
        // Dali's sample client (its repository's Shapes.swift and Graph.swift, newest version), compiled
        // as written but for the commented Swift 2 spellings; DocumentStoreTests runs it.
        .target(name: "DaliSampleClient", dependencies: ["DocumentStore"], path: "Tests/DaliSampleClient"),
        tests("DocumentStoreTests", dependencies: ["DocumentStore", "DocumentTestModel", "DaliSampleClient", "TestSupport", grdb,
                                                   .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // A child process the DocumentStore tests start.
        .executableTarget(name: "document-probe", dependencies: ["DocumentStore", "DocumentTestModel", "TestSupport"], path: "Tests/DocumentProbe"),
        tests("DocumentSyncTests", dependencies: ["DocumentSync", "DocumentStore", "DocumentTestModel", "TestSupport",
                                                  .product(name: "PostgresNIO", package: "postgres-nio")]),
        // A replicator the DocumentSync tests start and kill.
        .executableTarget(name: "sync-probe", dependencies: ["DocumentSync", "DocumentStore", "DocumentTestModel", "TestSupport"], path: "Tests/SyncProbe"),
        // One replica of the DocumentSync churn (ChurnTests, ci/sync-campaign): edits and synchronizes at random until killed.
        .executableTarget(name: "sync-churn", dependencies: ["DocumentSync", "DocumentStore", "DocumentTestModel", "TestSupport"], path: "Tests/SyncChurn"),
        // Blocks the cooperative pool and waits for other processes' changes (FileStorageKitTests' PoolBlockedTests).
        .executableTarget(name: "pool-probe", dependencies: ["FileStorageKit", "ModelPersistence", "CollectionStore"],
                          path: "Tests/PoolProbe"),
        // A child process the CollectionStore tests start.
        .executableTarget(name: "collection-probe", dependencies: ["CollectionStore", "TestSupport"], path: "Tests/CollectionProbe"),
        // A child process the StateGraph tests start: `@GraphStored` nodes kept in a defaults suite.
        .executableTarget(name: "graph-probe", dependencies: ["StateGraph", "FileStorageKit", "PlistCodec", "TestSupport"],
                          path: "Tests/GraphProbe"),
    ],
    swiftLanguageModes: [.v6]
)
