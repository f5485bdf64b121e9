import Foundation
import PlistCodec
import Testing
import TestSupport

/// `plist -convert` on Apple-written files, and `plist -lint` on broken ones: in-process, and once as
/// the built program over every broken file at once.
@Suite("plist round trips and lint")
struct PlistRoundTripTests {
    /// The binary files the codec's CoreFoundation mode rewrites byte for byte (the same list
    /// `GoldenFixtureTests.coreFoundationGoldens` holds, binary ones only).
    static let coreFoundationBinaries = Fixtures.list("PlistCodec/apple/cfpropertylist-ruby")
        + ["PlistCodec/apple/cpython/testdata_binary.plist"]
    /// 4-byte reals: XML keeps only "a real", so the way back writes 8 bytes.
    static let fourByteFloats: Set = ["PlistCodec/apple/cfpropertylist-ruby/real_float.plist"]

    @Test func theListIsComplete() {
        #expect(Self.coreFoundationBinaries.count == 25)
        for path in Self.coreFoundationBinaries {
            #expect(PlistFormat.detect((try? Fixtures.data(path)) ?? Data()) == .binary, "\(path)")
        }
    }

    @Test(arguments: coreFoundationBinaries)
    func binaryToXMLToBinaryGivesTheSameBytes(_ path: String) async throws {
        let temp = try TemporaryFolder(prefix: "plist-roundtrip")
        let original = try Fixtures.data(path)
        let file = temp.file("file.plist")
        try original.write(to: file)

        let toXML = try await PlistProgram.run(["-convert", "xml1", file.path])
        #expect(toXML.termination == .exited(0), "\(toXML)")
        #expect(toXML.output.isEmpty && toXML.errors.isEmpty, "\(toXML)")
        let xml = try Data(contentsOf: file)
        #expect(PlistFormat.detect(xml) == .xml)
        // The streamed conversion writes what the tree writer writes.
        #expect(xml == (try PlistValue(parsing: original).serialized(as: .xml, mode: .coreFoundation)))

        let toBinary = try await PlistProgram.run(["-convert", "binary1", file.path])
        #expect(toBinary.termination == .exited(0), "\(toBinary)")
        let back = try Data(contentsOf: file)
        if Self.fourByteFloats.contains(path) {
            #expect(back != original)
            let value = try PlistValue(parsing: back)
            #expect(value.doubleValue == (try PlistValue(parsing: original)).doubleValue)
        } else if let difference = Fixtures.firstDifference(back, original) {
            Issue.record("\(path): \(difference)")
        }
    }

    static let invalidFiles = Fixtures.list("PlistCodec/invalid", suffix: ".plist")

    @Test func thereAreInvalidFiles() {
        #expect(Self.invalidFiles.count >= 70)
        #expect(Self.toleratedFiles.count == 9)
    }

    static let toleratedFiles = Fixtures.list("PlistCodec/tolerated", suffix: ".plist")

    /// Issue 11, item 5: `-lint` accepts what Foundation reads; `-lint -strict` refuses it, with a location.
    @Test(arguments: toleratedFiles)
    func lintAcceptsToleratedFilesAndStrictLintRefusesThem(_ path: String) async throws {
        let url = Fixtures.url(path)
        let lenient = try await PlistProgram.run(["-lint", url.path])
        #expect(lenient.termination == .exited(0), "\(lenient)")
        #expect(lenient.output == url.path + ": OK\n", "\(lenient)")
        let strict = try await PlistProgram.run(["-lint", "-strict", url.path])
        #expect(strict.termination == .exited(1), "\(strict)")
        #expect(strict.errors.hasPrefix(url.path + ": "), "\(strict)")
        #expect(strict.errors.contains("(at byte ") || strict.errors.contains("(at line "), "no location: \(strict)")
    }

    /// What `-convert xml1` writes (CoreFoundation's calendar), `-convert binary1` reads back to the
    /// same second, for dates in year 1 and 1500 as for today.
    @Test func oldDatesSurviveAConversionRoundTrip() async throws {
        let temp = try TemporaryFolder(prefix: "plist-old-dates")
        let dates = [-63_113_904_000.0 + 3_661.5, -15_778_800_000.25, 700_000_000.75]
        let file = temp.file("dates.plist")
        try PlistValue.array(dates.map { .date(Date(timeIntervalSinceReferenceDate: $0)) }).serialized(as: .binary).write(to: file)
        for format in ["xml1", "binary1", "xml1", "binary1"] {
            let run = try await PlistProgram.run(["-convert", format, file.path])
            #expect(run.termination == .exited(0), "\(run)")
        }
        let back = try PlistValue(parsing: Data(contentsOf: file))
        #expect(back == .array(dates.map { .date(Date(timeIntervalSinceReferenceDate: $0.rounded(.down))) }))
    }

    @Test(arguments: invalidFiles)
    func lintReportsEveryInvalidFileWithALocation(_ path: String) async throws {
        let url = Fixtures.url(path)
        let run = try await PlistProgram.run(["-lint", url.path])
        #expect(run.termination == .exited(1), "\(run)")
        #expect(run.output.isEmpty, "\(run)")
        #expect(run.errors.hasPrefix(url.path + ": "), "\(run)")
        let hasLocation = run.errors.contains("(at byte ") || run.errors.contains("(at line ")
        #expect(hasLocation, "no location: \(run)")
        #expect(!run.errors.contains(": OK"))
        // The same error the codec's tree reader gives.
        do {
            _ = try PlistValue(parsing: Fixtures.data(path))
            Issue.record("\(path) parsed")
        } catch let error as PlistError {
            #expect(run.errors == "\(url.path): \(error)\n")
        }
    }

    @Test func lintOfAllInvalidFilesAtOnceFailsOnEach() async throws {
        let paths = Self.invalidFiles.map { Fixtures.url($0).path }
        let run = try await PlistProgram.runProgram(["-lint"] + paths + [Fixtures.url("Apps/plist/inputs/Info.plist").path])
        #expect(run.termination == .exited(1))
        let lines = run.errors.split(separator: "\n")
        #expect(lines.count == paths.count)
        #expect(run.output == Fixtures.url("Apps/plist/inputs/Info.plist").path + ": OK\n")
    }
}
