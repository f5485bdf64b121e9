import Foundation
import PlistCodec
@testable import PlistTool
import Testing
import TestSupport

/// `PlistTool.run` called in-process: standard input, argument grammar, key paths.
@Suite("plist in-process")
struct PlistInProcessTests {
    /// What one in-process run wrote.
    struct Output {
        var status: Int32
        var output = Data()
        var errors = Data()
        var text: String { String(decoding: output, as: UTF8.self) }
        var errorText: String { String(decoding: errors, as: UTF8.self) }
    }

    final class Collector: @unchecked Sendable {
        var output = Data()
        var errors = Data()
        var inputReads = 0
    }

    func run(_ arguments: [String], input: Data = Data()) -> Output {
        let collector = Collector()
        let status = PlistTool.run(
            arguments: arguments,
            standardInput: { collector.inputReads += 1; return input },
            standardOutput: { collector.output += $0 },
            standardError: { collector.errors += $0 })
        #expect(collector.inputReads <= 1, "standard input read \(collector.inputReads) times")
        return Output(status: status, output: collector.output, errors: collector.errors)
    }

    @Test func standardInputIsTheFileDash() throws {
        let binary = try Fixtures.data("PlistCodec/apple/cpython/testdata_binary.plist")
        let lint = run(["-lint", "-", "-"], input: binary)
        #expect(lint.status == 0)
        #expect(lint.text == "<stdin>: OK\n<stdin>: OK\n")

        let converted = run(["-convert", "xml1", "-"], input: binary)
        #expect(converted.status == 0)
        #expect(converted.output == (try PlistValue(parsing: binary).serialized(as: .xml, mode: .coreFoundation)))

        let back = run(["-convert", "binary1", "-o", "-", "-"], input: converted.output)
        #expect(back.output == binary)

        let bad = run(["-lint", "-"], input: Data("<plist><dict>".utf8))
        #expect(bad.status == 1)
        #expect(bad.errorText.hasPrefix("<stdin>: "))
    }

    @Test func extractBinaryToStandardOutput() throws {
        let info = Fixtures.url("Apps/plist/inputs/Info.plist").path
        let result = run(["-extract", "CFBundleURLTypes", "binary1", info])
        #expect(result.status == 0)
        let value = try PlistValue(parsing: result.output)
        #expect(value.arrayValue?.first?.dictionaryValue?["CFBundleURLName"] == .string("com.example.demo"))
        #expect(PlistFormat.detect(result.output) == .binary)
    }

    /// An `-xml` value is read in CoreFoundation's calendar, like the files: the date inserted is the
    /// date written (`PropertyListDecoder`'s calendar would move year 1 by two days).
    @Test func xmlValuesReadDatesAsTheFilesAre() throws {
        let temp = try TemporaryFolder(prefix: "plist-xml-value")
        let file = temp.file("d.plist")
        try PlistValue.dictionary([:]).serialized(as: .xml, mode: .coreFoundation).write(to: file)
        for text in ["0001-01-01T00:00:00Z", "1500-03-01T12:00:00Z", "1582-10-04T00:00:00Z"] {
            let insert = run(["-replace", "d", "-xml", "<date>\(text)</date>", file.path])
            #expect(insert.status == 0, "\(insert.errorText)")
            let xml = run(["-extract", "d", "xml1", file.path])
            #expect(xml.text.contains("<date>\(text)</date>"), "\(text): \(xml.text)")
        }
    }

    @Test func commandGrammar() throws {
        #expect(try PlistCommand(parsing: ["a.plist"]).operation == .lint)
        #expect(try PlistCommand(parsing: ["a.plist"]).files == ["a.plist"])
        let convert = try PlistCommand(parsing: ["-convert", "json", "-r", "-o", "-", "--", "-s"])
        #expect(convert.operation == .convert(.json))
        #expect(convert.readableJSON && convert.outputPath == "-" && !convert.silent)
        #expect(convert.files == ["-s"])
        let insert = try PlistCommand(parsing: ["-insert", "a.0", "-string", "v", "-append", "f"])
        #expect(insert.operation == .insert(try KeyPath("a.0"), .string("v"), append: true))
        let extract = try PlistCommand(parsing: ["-extract", "k", "raw", "f", "-expect", "date"])
        #expect(extract.operation == .extract(try KeyPath("k"), .raw, expect: .date))
        #expect(throws: UsageError("No files specified.")) { try PlistCommand(parsing: ["-lint"]) }
        #expect(throws: UsageError("unrecognized option: -x")) { try PlistCommand(parsing: ["-lint", "-x", "f"]) }
        #expect(throws: UsageError.self) { try PlistCommand(parsing: ["-lint", "-p", "f"]) }
        #expect(throws: UsageError("'-insert' with -string requires a value.")) {
            try PlistCommand(parsing: ["-insert", "a", "-string"])
        }
    }

    @Test func keyPathsSplitOnUnescapedDots() throws {
        #expect(try KeyPath("a.b.0").components == ["a", "b", "0"])
        #expect(try KeyPath("com\\.example.x").components == ["com.example", "x"])
        #expect(try KeyPath("").components == [""])
    }

    @Test func editsFollowPlutilRules() throws {
        var value = PlistValue.dictionary(["list": .array([.int(1)]), "d": .dictionary([:])])
        try value.apply(.insert, .int(0), at: KeyPath("list.0"))
        try value.apply(.append, .int(2), at: KeyPath("list"))
        try value.apply(.insert, .string("x"), at: KeyPath("d.k"))
        #expect(value.value(at: try KeyPath("list")) == .array([.int(0), .int(1), .int(2)]))
        #expect(throws: KeyPathError("Value already exists at key path d.k")) {
            try value.apply(.insert, .string("y"), at: KeyPath("d.k"))
        }
        try value.apply(.replace, .string("y"), at: KeyPath("d.k"))
        #expect(value.value(at: try KeyPath("d.k")) == .string("y"))
        try value.apply(.remove, nil, at: KeyPath("list.1"))
        #expect(value.value(at: try KeyPath("list")) == .array([.int(0), .int(2)]))
        #expect(throws: KeyPathError("No value to remove at key path list.5")) {
            try value.apply(.remove, nil, at: KeyPath("list.5"))
        }
        #expect(throws: KeyPathError("Value at [d] is not an array")) {
            try value.apply(.append, .int(1), at: KeyPath("d"))
        }
    }

    @Test func jsonValuesKeepOrderAndKinds() throws {
        let value = try JSONPlistReader.read(#"{"z": [1, -2.5e1, true, "a\u00e9\/"], "a": {}}"#)
        #expect(value == .dictionary(["z": .array([.int(1), .real(-25), .bool(true), .string("aé/")]), "a": .dictionary([:])]))
        #expect(throws: JSONPlistReader.Failure.self) { try JSONPlistReader.read("[null]") }
        #expect(throws: JSONPlistReader.Failure.self) { try JSONPlistReader.read("{\"a\":1} x") }
    }

    @Test func dataDescriptionsFollowCoreFoundation() {
        #expect(PlistText.dataDescription(Data([1, 2, 3])) == "{length = 3, bytes = 0x010203}")
        let long = Data(0..<30)
        #expect(PlistText.dataDescription(long)
            == "{length = 30, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 16171819 1a1b1c1d }")
    }
}
