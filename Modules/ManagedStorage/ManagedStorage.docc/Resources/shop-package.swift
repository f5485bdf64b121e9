// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Shop",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A checkout of the toolkit in a folder named persistence-toolkit, beside this package.
        .package(path: "../persistence-toolkit"),
    ],
    targets: [
        .executableTarget(name: "Shop", dependencies: [
            .product(name: "ManagedStorage", package: "persistence-toolkit"),
        ]),
    ]
)
