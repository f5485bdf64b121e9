import Foundation
import PlistCodec
import TestSupport
import Testing

/// Issue 11, item 5: every file in `Fixtures/PlistCodec/tolerated/` breaks a rule of its format and is
/// read by Foundation anyway. By default it reads as Foundation reads it (compared with
/// `PropertyListSerialization` on this machine); strict reading refuses it with the kind the README
/// gives, as every reader did before.
@Suite struct ToleratedInputTests {
    static let folder = "PlistCodec/tolerated"
    static let files = Fixtures.list(folder, suffix: ".plist")

    /// File name to the strict kind, from the README's table.
    static let strictKinds: [String: PlistError.Kind] = {
        guard let readme = try? String(contentsOf: Fixtures.url(folder + "/README.md"), encoding: .utf8) else { return [:] }
        var table: [String: PlistError.Kind] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let kind = PlistError.Kind(rawValue: cells[2].trimmingCharacters(in: ["`"])) else { continue }
            table[cells[0].trimmingCharacters(in: ["`"])] = kind
        }
        return table
    }()

    static func name(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    @Test func theNineFilesAreDocumented() {
        #expect(Self.files.count == 9)
        #expect(Set(Self.files.map(Self.name)) == Set(Self.strictKinds.keys))
    }

    @Test(arguments: files)
    func readsAsFoundationReads(_ path: String) throws {
        let data = try Fixtures.data(path)
        let theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        let ours = try PlistValue(parsing: data)
        #expect(foundationMismatch(ours, theirs) == nil, "\(path): \(foundationMismatch(ours, theirs) ?? "")")
        // The streaming validator (`plist -lint`) agrees with the tree reader.
        try PlistStreaming.validate(data)
    }

    @Test(arguments: files)
    func strictReadingRefuses(_ path: String) throws {
        let data = try Fixtures.data(path)
        let expected = try #require(Self.strictKinds[Self.name(path)])
        let strict = PlistReadOptions(strict: true)
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: strict) }
        #expect(error.kind == expected, "\(path): \(error)")
        let streaming = try #require(throws: PlistError.self) { try PlistStreaming.validate(data, options: strict) }
        #expect(streaming.kind == expected, "\(path): \(streaming)")
    }

    /// Foundation reads each byte of a binary "ASCII" string as Latin-1: "caf\u{E9}" is "café", and
    /// the binary-to-XML stream writes the same string.
    @Test func binaryASCIIStringsWithHighBytesReadAsLatin1() throws {
        // bplist00, one ASCII string of 4 bytes "caf\xE9", offset table, trailer.
        var bytes: [UInt8] = Array("bplist00".utf8) + [0x54, 0x63, 0x61, 0x66, 0xE9] + [0x08]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 13]
        let data = Data(bytes)
        let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? String
        #expect(foundation == "café")
        #expect(try PlistValue(parsing: data) == .string("café"))
        var xml = Data()
        try PlistStreaming.writeXML(fromBinary: data) { xml.append($0) }
        #expect(try PlistValue(parsing: xml) == .string("café"))
        #expect(try PlistValue(parsing: data).serialized(as: .xml) == xml)
    }
}
