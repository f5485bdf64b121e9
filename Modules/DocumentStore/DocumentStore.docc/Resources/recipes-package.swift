// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Recipes",
    platforms: [.macOS(.v15)],
    dependencies: [
        // A checkout of the toolkit in a folder named persistence-toolkit, beside this package.
        .package(path: "../persistence-toolkit"),
    ],
    targets: [
        .executableTarget(name: "Recipes", dependencies: [
            .product(name: "DocumentStore", package: "persistence-toolkit"),
        ]),
    ]
)
