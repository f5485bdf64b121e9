import Foundation
import PlistCodec
import Testing
import TestSupport

/// `PlistDecoder` reports malformed bytes as `PropertyListDecoder` does, so ported error handling works,
/// and keeps the `PlistError` (what and where) inside.
@Suite struct DecoderErrorTests {
    struct Settings: Codable, Equatable { var name: String }

    static let malformed: [(String, Data)] = [
        ("truncated XML", Data("<plist><dict><key>name</key><string>x</string>".utf8)),
        ("bad binary trailer", Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)),
        ("OpenStep garbage", Data("{ name = ".utf8)),
        ("empty", Data()),
    ]

    /// Code written for Foundation (`catch DecodingError.dataCorrupted`) catches ours, with the same
    /// empty coding path as Foundation's.
    @Test func portedCatchDecodingErrorCatchesMalformedBytes() throws {
        for (name, data) in Self.malformed {
            func outcome(_ decode: () throws -> Settings) -> String {
                do {
                    _ = try decode()
                    return "decoded"
                } catch DecodingError.dataCorrupted(let context) {
                    return context.codingPath.isEmpty ? "dataCorrupted at the top" : "dataCorrupted at \(context.codingPath)"
                } catch {
                    return "other error: \(error)"
                }
            }
            let theirs = outcome { try PropertyListDecoder().decode(Settings.self, from: data) }
            let ours = outcome { try PlistDecoder().decode(Settings.self, from: data) }
            #expect(theirs == "dataCorrupted at the top", "\(name): Foundation \(theirs)")
            #expect(ours == theirs, "\(name)")
        }
    }

    /// The `PlistError` underneath keeps its kind and location; `PlistError.found(in:)` finds it.
    @Test func thePlistErrorInsideKeepsItsLocation() throws {
        let data = Data("<plist>\n<dict>\n<key>name</key><integr>1</integr>\n</dict>\n</plist>".utf8)
        do {
            _ = try PlistDecoder().decode(Settings.self, from: data)
            Issue.record("decoded")
        } catch {
            let found = try #require(PlistError.found(in: error))
            #expect(found.kind == .malformed)
            #expect(found.location == .line(3, column: 16))
            #expect(found == (try #require(throws: PlistError.self) { try PlistValue(parsing: data) }))
            #expect("\(error)".contains("line 3, column 16"), "the description shows where: \(error)")
        }
    }

    /// Errors about the content, not the bytes, stay as they were: no `PlistError` to find in them.
    @Test func contentMismatchesAreNotPlistErrors() throws {
        let data = try PlistEncoder().encode(["name": 5])
        do {
            _ = try PlistDecoder().decode(Settings.self, from: data)
            Issue.record("decoded")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["name"])
            #expect(PlistError.found(in: DecodingError.typeMismatch(String.self, context)) == nil)
        }
        #expect(PlistError.found(in: CocoaError(.fileNoSuchFile)) == nil)
        let plain = PlistError(.truncated, "x", at: .byte(3))
        #expect(PlistError.found(in: plain) == plain)
        // A PlistError under two layers of dataCorrupted (a decoder inside a decoder) is still found.
        let inner = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "", underlyingError: plain))
        let outer = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "", underlyingError: inner))
        #expect(PlistError.found(in: outer) == plain)
    }
}
