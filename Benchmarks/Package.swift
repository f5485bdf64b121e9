// swift-tools-version: 6.0
// Benchmarks for the persistence toolkit: a separate package so `ci/test` never builds or runs them.
// Build and run (from the repository root):
//   swift build -c release --package-path Benchmarks --scratch-path Benchmarks/.build
//   Benchmarks/.build/release/plist-bench
//   Benchmarks/.build/release/plist-tree-bench  (needs libplist: see README.md)
//   Benchmarks/.build/release/storage-bench
//   Benchmarks/.build/release/model-bench
//   Benchmarks/.build/release/collection-bench
//   Benchmarks/.build/release/graph-bench
//   Benchmarks/.build/release/plist-tool-bench
//   Benchmarks/.build/release/managed-bench
//   Benchmarks/.build/release/document-bench
//   Benchmarks/.build/release/sync-bench        (needs PostgreSQL: see README.md)
import PackageDescription

/// SwiftPM names a path dependency after its folder, so take the root folder's name from this file's path.
let rootPackage = String(#filePath.split(separator: "/").dropLast(2).last ?? "main")

let package = Package(
    name: "persistence-toolkit-benchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    dependencies: [
        .package(path: ".."),
        // The same GRDB.swift as the root package: raw SQLite (GRDBSQLite) on the peer side of managed-bench and
        // document-bench, and GRDB's records as managed-bench's other peers.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        // The same postgres-nio as the root package, for the raw peer of sync-bench.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
    ],
    targets: [
        // What the benchmark programs share: alternating measurement, option parsing, the file-system probe.
        .target(name: "BenchSupport", path: "Sources/BenchSupport"),
        // glibc's heap statistics (mallinfo2 is not in Swift's Glibc module), for bytes held per row.
        .target(name: "HeapUsage", path: "Sources/HeapUsage"),
        .executableTarget(
            name: "plist-bench",
            dependencies: ["BenchSupport", .product(name: "PlistCodec", package: rootPackage)],
            path: "Sources/plist-bench"
        ),
        .executableTarget(
            name: "storage-bench",
            dependencies: ["BenchSupport", .product(name: "FileStorageKit", package: rootPackage)],
            path: "Sources/storage-bench"
        ),
        .executableTarget(
            name: "model-bench",
            dependencies: ["BenchSupport", .product(name: "ModelPersistence", package: rootPackage),
                           .product(name: "FileStorageKit", package: rootPackage)],
            path: "Sources/model-bench"
        ),
        .executableTarget(
            name: "collection-bench",
            dependencies: ["BenchSupport", .product(name: "CollectionStore", package: rootPackage)],
            path: "Sources/collection-bench"
        ),
        .executableTarget(
            name: "graph-bench",
            dependencies: ["BenchSupport", .product(name: "StateGraph", package: rootPackage)],
            path: "Sources/graph-bench"
        ),
        // libplist (C) is loaded at run time (dlopen), so the package builds without libplist-dev.
        .executableTarget(
            name: "plist-tree-bench",
            dependencies: ["BenchSupport", .product(name: "PlistCodec", package: rootPackage)],
            path: "Sources/plist-tree-bench"
        ),
        .executableTarget(
            name: "plist-tool-bench",
            dependencies: ["BenchSupport", .product(name: "PlistCodec", package: rootPackage)],
            path: "Sources/plist-tool-bench"
        ),
        .executableTarget(
            name: "managed-bench",
            dependencies: ["BenchSupport", "HeapUsage", .product(name: "ManagedStorage", package: rootPackage),
                           .product(name: "GRDBSQLite", package: "GRDB.swift"), .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/managed-bench"
        ),
        .executableTarget(
            name: "document-bench",
            dependencies: ["BenchSupport", .product(name: "DocumentStore", package: rootPackage),
                           .product(name: "GRDBSQLite", package: "GRDB.swift")],
            path: "Sources/document-bench",
            exclude: ["profile-saves.py"]
        ),
        .executableTarget(
            name: "sync-bench",
            dependencies: ["BenchSupport", .product(name: "DocumentStore", package: rootPackage),
                           .product(name: "DocumentSync", package: rootPackage),
                           .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Sources/sync-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
