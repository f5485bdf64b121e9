import Foundation

/// Finds golden files under the package's `Fixtures/` folder and compares bytes against them.
///
/// Paths are relative to `Fixtures/` and are found through `#filePath`, so tests work from any
/// working directory and never depend on a copied resource bundle.
///
/// ```swift
/// let xml = try Fixtures.data("PlistCodec/apple/cpython/testdata_xml.plist")
/// if let diff = Fixtures.firstDifference(written, xml) { Issue.record("\(diff)") }
/// ```
public enum Fixtures {
    /// The package's `Fixtures/` folder (found from this source file's location).
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Tests/TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// The URL of a fixture, given its path relative to `Fixtures/`.
    ///
    /// - Parameter relativePath: For example `"PlistCodec/apple/cpython/testdata_xml.plist"`.
    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath, isDirectory: false)
    }

    /// The bytes of a fixture, given its path relative to `Fixtures/`.
    ///
    /// - Throws: The file-system error when the file cannot be read.
    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// The files directly inside a fixture folder, as sorted paths relative to `Fixtures/`.
    ///
    /// Hidden files and subfolders are skipped. A missing folder gives an empty list, so a caller
    /// should also assert how many files it expects.
    ///
    /// - Parameters:
    ///   - folder: A folder relative to `Fixtures/`, such as `"PlistCodec/invalid"`.
    ///   - suffix: Keep only names that end with this (`".plist"`); `nil` keeps every file.
    public static func list(_ folder: String, suffix: String? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url(folder).path)) ?? []
        return names
            .filter { !$0.hasPrefix(".") }
            .filter { suffix == nil || $0.hasSuffix(suffix ?? "") }
            .filter { name in
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(
                    atPath: url(folder + "/" + name).path, isDirectory: &isDirectory)
                return exists && !isDirectory.boolValue
            }
            .sorted()
            .map { folder + "/" + $0 }
    }

    /// Describes where two byte strings first differ, or returns `nil` when they are equal.
    ///
    /// The description gives both lengths, the first differing offset in decimal and hex, and up to
    /// `context` bytes of hex either side from each input, with the differing byte in brackets.
    ///
    /// - Parameters:
    ///   - actual: The bytes produced by the code under test.
    ///   - expected: The golden bytes.
    ///   - context: How many bytes to show on each side of the first difference.
    public static func firstDifference(_ actual: Data, _ expected: Data, context: Int = 16) -> String? {
        let a = [UInt8](actual), e = [UInt8](expected)
        if a == e { return nil }
        let common = min(a.count, e.count)
        let offset = (0..<common).first { a[$0] != e[$0] } ?? common
        func dump(_ bytes: [UInt8]) -> String {
            let start = max(0, offset - context), end = min(bytes.count, offset + context + 1)
            guard start < end else { return "(ends at \(bytes.count))" }
            return (start..<end).map { i in
                let hex = String(format: "%02x", bytes[i])
                return i == offset ? "[\(hex)]" : hex
            }.joined(separator: " ") + (offset >= bytes.count ? " [end]" : "")
        }
        return """
            first difference at byte \(offset) (0x\(String(offset, radix: 16))); \
            actual \(a.count) bytes, expected \(e.count) bytes
              actual   from \(max(0, offset - context)): \(dump(a))
              expected from \(max(0, offset - context)): \(dump(e))
            """
    }
}
