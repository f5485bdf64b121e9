// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Notes",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A checkout of the toolkit in a folder named persistence-toolkit, beside this package.
        .package(path: "../persistence-toolkit"),
    ],
    targets: [
        .executableTarget(name: "Notes", dependencies: [
            .product(name: "DocumentStore", package: "persistence-toolkit"),
            .product(name: "DocumentSync", package: "persistence-toolkit"),
        ]),
    ]
)
