// swift-tools-version: 5.4
// The libFuzzer targets (Docs/Fuzzing.md): a package of their own, so the root package's build
// (`ci/test`) never sees them and every module here is built with the fuzzer's instrumentation.
// `Fuzz/build` builds them, from the repository root, with:
//
//   swift build --package-path Fuzz --scratch-path .build-fuzz -c release \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -g -Xswiftc -use-ld=lld
//
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point to
// `<module>_main` and links with `--defsym main=<module>_main` (so tests can link executables), and
// under `-parse-as-library` no such symbol exists: the link fails. libFuzzer brings its own `main`.
// Hence `public`, not `package`, in the two libraries, and Swift 5 language mode, as plain `swiftc`.
//
// No dependency on the root package (`..` would resolve swift-syntax, GRDB and postgres-nio): the
// code under test comes in through symlinks and is compiled here, instrumented, from the same files.
// - `Sources/PlistCodec` links to `Modules/PlistCodec`: the whole module, as a library.
// - Internal types a target needs are reached by linking their files into the target's folder:
//   `plist-json` has `Apps/plist/PlistTool/JSONPlistReader.swift`, `document-json` DocumentStore's
//   JSON files (none of which imports GRDB).
import PackageDescription

/// A fuzz target: an executable whose `LLVMFuzzerTestOneInput` libFuzzer's `main` calls.
func fuzzTarget(_ name: String, dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Sources/\(name)")
}

let plistReader: [Target.Dependency] = ["FuzzSupport", "PlistChecks", "PlistCodec"]

let package = Package(
    name: "persistence-toolkit-fuzz",
    platforms: [.macOS("15.0"), .iOS("18.0"), .tvOS("18.0"), .watchOS("11.0")],
    targets: [
        .target(name: "PlistCodec", path: "Sources/PlistCodec"),
        // What every target shares: the input as Data or text, `fuzzRequire`, and the decoders' model.
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport"),
        // The promises every property-list reader makes, and the bound on shared-container expansion.
        .target(name: "PlistChecks", dependencies: ["FuzzSupport", "PlistCodec"], path: "Sources/PlistChecks"),
        fuzzTarget("binary-plist", dependencies: plistReader),
        fuzzTarget("xml-plist", dependencies: plistReader),
        fuzzTarget("openstep-plist", dependencies: plistReader),
        fuzzTarget("plist-decoder", dependencies: plistReader),
        fuzzTarget("plist-json", dependencies: ["FuzzSupport", "PlistCodec"]),
        fuzzTarget("document-json", dependencies: ["FuzzSupport"]),
    ]
)
