import Foundation
import PlistCodec
import TestSupport
import Testing

/// Every file in `Fixtures/PlistCodec/invalid/` is rejected with the documented `PlistError`.
///
/// The expected kinds come from the table in that folder's `README.md` (written by
/// `make-invalid.py`): it is the single source of truth, and this suite parses it.
@Suite(.timeLimit(.minutes(2)))
struct InvalidInputTests {
    static let folder = "PlistCodec/invalid"
    static let files = Fixtures.list(folder, suffix: ".plist")

    /// File name to accepted kinds, from the README's `| `file` | what | `kind` |` rows.
    static let expectedKinds: [String: [PlistError.Kind]] = {
        guard let readme = try? String(contentsOf: Fixtures.url(folder + "/README.md"), encoding: .utf8) else {
            return [:]
        }
        var table: [String: [PlistError.Kind]] = [:]
        // The first table only: later sections (## ...) have tables of their own.
        let firstSection = readme.components(separatedBy: "\n## ").first ?? ""
        for line in firstSection.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, let name = cells.first, let kinds = cells.last else { continue }
            table[name.trimmingCharacters(in: ["`"])] = kinds.replacingOccurrences(of: "`", with: "")
                .components(separatedBy: " or ")
                .map { PlistError.Kind(rawValue: $0) ?? .unsupportedValue }
        }
        return table
    }()

    static func name(_ path: String) -> String { String(path.split(separator: "/").last ?? "") }

    @Test func corpusIsLargeAndDocumented() {
        #expect(Self.files.count >= 30)
        #expect(Set(Self.files.map(Self.name)) == Set(Self.expectedKinds.keys),
                "README.md and the folder disagree: re-run make-invalid.py")
        let unknown = Self.expectedKinds.filter { $0.value.contains(.unsupportedValue) }.keys
        #expect(unknown.isEmpty, "kinds that are not PlistError.Kind names (or unsupportedValue): \(unknown)")
    }

    /// Refused whether or not the reader is strict: Foundation refuses these too (or, for a
    /// dictionary key that is not a string, reads what a `PlistValue` cannot hold).
    @Test(arguments: files, [false, true])
    func parsingThrows(_ path: String, strict: Bool) throws {
        let data = try Fixtures.data(path)
        let expected = try #require(Self.expectedKinds[Self.name(path)], "\(path) is not in README.md")
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data, options: PlistReadOptions(strict: strict)) }
        Self.check(error, expected: expected, input: data)
    }

    @Test(arguments: files, [false, true])
    func decodingThrows(_ path: String, strict: Bool) throws {
        let data = try Fixtures.data(path)
        let expected = try #require(Self.expectedKinds[Self.name(path)], "\(path) is not in README.md")
        var decoder = PlistDecoder()
        decoder.options.strict = strict
        decoder.userInfo[WalkBudget.key] = WalkBudget(limit: 100_000)
        // As `PropertyListDecoder` does: `DecodingError.dataCorrupted` with an empty coding path,
        // wrapping the `PlistError` that says what and where.
        let thrown = try #require(throws: DecodingError.self) { try decoder.decode(Walk.self, from: data) }
        guard case .dataCorrupted(let context) = thrown else {
            Issue.record("\(path): expected .dataCorrupted, got \(thrown)")
            return
        }
        #expect(context.codingPath.isEmpty)
        let error = try #require(context.underlyingError as? PlistError, "\(path): \(thrown)")
        #expect(PlistError.found(in: thrown) == error)
        Self.check(error, expected: expected, input: data)
    }

    /// The kind is one the README allows, and the location fits the input's format and size.
    static func check(
        _ error: PlistError, expected: [PlistError.Kind], input: Data,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(expected.contains(error.kind), "got .\(error.kind): \(error)", sourceLocation: sourceLocation)
        switch (PlistFormat.detect(input), error.location) {
        case (.binary, .byte(let offset)):
            #expect((0...input.count).contains(offset), "\(error)", sourceLocation: sourceLocation)
        case (.xml, .line(let line, let column)), (.openStep, .line(let line, let column)):
            let lines = input.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            #expect((1...lines).contains(line) && column >= 1, "\(error)", sourceLocation: sourceLocation)
        case (let format, let location):
            Issue.record("\(format) input reported location \(location): \(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Limits

    /// Arrays nested `depth` deep, in each readable format.
    static func nested(_ depth: Int, as format: PlistFormat) -> Data {
        switch format {
        case .xml:
            return Data(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n"
                + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
                + "\n</plist>\n").utf8)
        case .openStep:
            return Data((String(repeating: "(", count: depth) + String(repeating: ")", count: depth) + "\n").utf8)
        case .binary:
            // Object i is [i + 1] with 2-byte references; the last is []. Offsets are 2 bytes.
            var bytes = [UInt8]("bplist00".utf8)
            var offsets: [Int] = []
            for i in 0..<depth {
                offsets.append(bytes.count)
                bytes += i == depth - 1 ? [0xA0] : [0xA1, UInt8((i + 1) >> 8), UInt8((i + 1) & 0xFF)]
            }
            let table = bytes.count
            for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
            bytes += [0, 0, 0, 0, 0, 0, 2, 2]
            for field in [UInt64(depth), 0, UInt64(table)] { bytes += withUnsafeBytes(of: field.bigEndian, Array.init) }
            return Data(bytes)
        }
    }

    @Test(arguments: PlistFormat.allCases)
    func maxDepthIsConfigurable(_ format: PlistFormat) throws {
        let data = Self.nested(100, as: format)
        #expect(PlistFormat.detect(data) == format)
        var depth = try PlistValue(parsing: data)
        for _ in 1..<100 { depth = try #require(depth.arrayValue?.first) }
        #expect(depth == .array([]))
        _ = try PlistValue(parsing: data, options: PlistReadOptions(maxDepth: 150))
        let error = try #require(throws: PlistError.self) {
            try PlistValue(parsing: data, options: PlistReadOptions(maxDepth: 50))
        }
        #expect(error.kind == .tooDeep)
        var decoder = PlistDecoder()
        decoder.options.maxDepth = 50
        let thrown = try #require(throws: DecodingError.self) { try decoder.decode(Walk.self, from: data) }
        #expect(PlistError.found(in: thrown)?.kind == .tooDeep)
        _ = try PlistDecoder().decode(Walk.self, from: data)
    }

    /// Counts that claim more than the file holds fail before anything that size is allocated.
    @Test(arguments: ["bin_array_count_2_40", "bin_dict_count_2_40", "bin_string_count_2_40", "bin_data_count_2_40",
                      "bin_utf16_count_2_62", "bin_count_int64_max"])
    func hugeCountFailsFast(_ name: String) throws {
        let data = try Fixtures.data("\(Self.folder)/\(name).plist")
        let error = try #require(throws: PlistError.self) { try PlistValue(parsing: data) }
        #expect([.outOfRange, .truncated].contains(error.kind), "\(error)")
    }
}

extension InvalidInputTests {
    // MARK: - A Decodable that visits every value

    /// Stops a walk after `limit` values, so a decoder that re-reads shared objects fails instead of hanging.
    final class WalkBudget: @unchecked Sendable {
        struct Exhausted: Error {}
        private let lock = NSLock()
        private var left: Int
        /// Where `Walk` finds its budget in the decoder's `userInfo`.
        static let key = CodingUserInfoKey(rawValue: "walkBudget")!
        init(limit: Int) { left = limit }
        func spend() throws {
            let exhausted = lock.withLock {
                left -= 1
                return left < 0
            }
            if exhausted { throw Exhausted() }
        }
    }


    /// Decodes any property list by visiting every dictionary, array and scalar in it.
    struct Walk: Decodable {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        /// Runs `body`, treating a `DecodingError` (a type that does not match) as `nil`; other errors propagate.
        static func attempt<T>(_ body: () throws -> T) throws -> T? {
            do { return try body() } catch is DecodingError { return nil }
        }

        init(from decoder: Decoder) throws {
            try (decoder.userInfo[WalkBudget.key] as? WalkBudget)?.spend()
            if let keyed = try Self.attempt({ try decoder.container(keyedBy: Key.self) }) {
                for key in keyed.allKeys { _ = try keyed.decode(Walk.self, forKey: key) }
            } else if var unkeyed = try Self.attempt({ try decoder.unkeyedContainer() }) {
                while !unkeyed.isAtEnd { _ = try unkeyed.decode(Walk.self) }
            } else {
                let single = try decoder.singleValueContainer()
                if single.decodeNil() { return }
                if try Self.attempt({ try single.decode(String.self) }) != nil { return }
                if try Self.attempt({ try single.decode(Bool.self) }) != nil { return }
                if try Self.attempt({ try single.decode(Int64.self) }) != nil { return }
                if try Self.attempt({ try single.decode(UInt64.self) }) != nil { return }
                if try Self.attempt({ try single.decode(Double.self) }) != nil { return }
                if try Self.attempt({ try single.decode(Data.self) }) != nil { return }
                _ = try Self.attempt({ try single.decode(Date.self) })
            }
        }
    }
}
