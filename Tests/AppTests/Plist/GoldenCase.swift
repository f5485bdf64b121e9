import Foundation
import TestSupport

/// One end-to-end scenario: steps run in a fresh temporary folder, their transcript compared with
/// `Fixtures/Apps/plist/golden/<name>.txt`.
///
/// In arguments, `$FIXTURES` stands for the `Fixtures` folder and `$TMP` for the case's temporary
/// folder; the transcript writes them back the same way, so goldens hold no machine's paths.
struct GoldenCase: Sendable, CustomStringConvertible {
    enum Step: Sendable {
        /// Copies a file from `Fixtures/` into the temporary folder.
        case copy(String, to: String)
        /// Runs `plist` with these arguments.
        case run([String])
        /// Shows a text file of the temporary folder.
        case show(String)
    }

    let name: String
    let steps: [Step]

    var description: String { name }
    var goldenPath: String { "Apps/plist/golden/\(name).txt" }

    init(_ name: String, _ steps: Step...) {
        self.name = name
        self.steps = steps
    }

    /// A case of one `plist` run.
    static func run(_ name: String, _ arguments: String...) -> GoldenCase {
        GoldenCase(name, .run(arguments))
    }

    /// Runs the steps in `folder`, each `plist` command line through `plist` (in-process unless told
    /// otherwise), and returns the transcript.
    func transcript(in folder: URL,
                    plist: ([String]) async throws -> PlistProgram.Run = PlistProgram.run) async throws -> String {
        let fixtures = Fixtures.root.path
        func expand(_ text: String) -> String {
            text.replacingOccurrences(of: "$FIXTURES", with: fixtures).replacingOccurrences(of: "$TMP", with: folder.path)
        }
        func normalize(_ text: String) -> String {
            text.replacingOccurrences(of: folder.path, with: "$TMP").replacingOccurrences(of: fixtures, with: "$FIXTURES")
        }
        var out = ""
        for step in steps {
            switch step {
            case .copy(let source, let name):
                try FileManager.default.copyItem(at: Fixtures.url(source), to: folder.appendingPathComponent(name))
            case .run(let arguments):
                let run = try await plist(arguments.map(expand))
                out += "$ plist \(arguments.joined(separator: " "))\n"
                out += "ended: \(run.termination)\n"
                out += Self.block("stdout", normalize(run.output))
                out += Self.block("stderr", normalize(run.errors))
            case .show(let name):
                let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                out += "$ cat $TMP/\(name)\n" + Self.block("file", text)
            }
        }
        return out
    }

    /// A labelled block, each line prefixed by `| `, marking a last line without a newline.
    static func block(_ label: String, _ text: String) -> String {
        guard !text.isEmpty else { return "\(label): (empty)\n" }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { "| " + $0 }
        if text.hasSuffix("\n") { lines.removeLast() } else { lines.append("\\ no newline at end") }
        return "\(label):\n" + lines.joined(separator: "\n") + "\n"
    }
}

extension GoldenCase {
    static let ruby = "$FIXTURES/PlistCodec/apple/cfpropertylist-ruby"
    static let cpython = "$FIXTURES/PlistCodec/apple/cpython"
    static let inputs = "$FIXTURES/Apps/plist/inputs"

    /// Every scenario with a golden file.
    static let all: [GoldenCase] = [
        run("help", "-help"),
        run("help-double-dash", "--help"),
        run("lint-several", "-lint", "\(cpython)/testdata_binary.plist", "\(cpython)/testdata_xml.plist",
            "\(ruby)/dictionary.plist", "\(inputs)/openstep.plist"),
        run("lint-default-command", "\(inputs)/Info.plist"),
        run("lint-silent", "-lint", "-s", "\(inputs)/Info.plist", "$FIXTURES/PlistCodec/invalid/xml_bad_integer.plist"),
        run("lint-missing-file", "-lint", "\(inputs)/no-such.plist", "\(inputs)/Info.plist"),
        run("print-binary", "-p", "\(cpython)/testdata_binary.plist"),
        run("print-xml", "-p", "\(inputs)/Info.plist"),
        run("print-keyed-archive", "-p", "\(cpython)/keyed_archive.bplist"),
        run("print-openstep", "-p", "\(inputs)/openstep.plist"),
        run("print-scalars", "-p", "\(ruby)/int_signed.plist", "\(ruby)/real_double.plist", "\(ruby)/date_1900.plist",
            "\(ruby)/boolean_true.plist", "\(ruby)/data_short.plist", "\(ruby)/string_utf8_short.plist"),
        run("convert-xml-to-stdout", "-convert", "xml1", "-o", "-", "\(cpython)/testdata_binary.plist"),
        run("convert-json-refuses-date", "-convert", "json", "-o", "-", "\(inputs)/Info.plist"),
        run("convert-json", "-convert", "json", "-o", "-", "\(inputs)/settings.plist"),
        run("convert-json-readable", "-convert", "json", "-r", "-o", "-", "\(inputs)/settings.plist"),
        run("convert-json-scalar-refused", "-convert", "json", "-o", "-", "\(ruby)/int_1_byte.plist"),
        run("convert-swift", "-convert", "swift", "-o", "-", "\(inputs)/settings.plist"),
        run("convert-objc", "-convert", "objc", "-o", "-", "\(inputs)/settings.plist"),
        GoldenCase("convert-in-place-and-extension",
                   .copy("Apps/plist/inputs/openstep.plist", to: "old.plist"),
                   .run(["-convert", "xml1", "$TMP/old.plist"]),
                   .show("old.plist"),
                   .run(["-convert", "json", "-e", "json", "$TMP/old.plist"]),
                   .copy("Apps/plist/inputs/settings.plist", to: "s.plist"),
                   .run(["-convert", "json", "-r", "-e", "json", "$TMP/s.plist"]),
                   .show("s.json"),
                   .run(["-convert", "swift", "$TMP/s.plist"]),
                   .show("s.swift")),
        GoldenCase("convert-binary-then-print",
                   .copy("Apps/plist/inputs/Info.plist", to: "Info.plist"),
                   .run(["-convert", "binary1", "$TMP/Info.plist"]),
                   .run(["-lint", "$TMP/Info.plist"]),
                   .run(["-convert", "xml1", "$TMP/Info.plist"]),
                   .show("Info.plist")),
        run("extract-raw", "-extract", "CFBundleName", "raw", "\(inputs)/Info.plist"),
        run("extract-raw-no-newline", "-extract", "CFBundleVersion", "raw", "-n", "\(inputs)/Info.plist"),
        run("extract-raw-kinds", "-extract", "Released", "raw", "\(inputs)/Info.plist"),
        run("extract-raw-data", "-extract", "Icon", "-raw", "\(inputs)/Info.plist"),
        run("extract-raw-dictionary", "-extract", "window", "raw", "\(inputs)/settings.plist"),
        run("extract-raw-array", "-extract", "tags", "raw", "-expect", "array", "\(inputs)/settings.plist"),
        run("extract-index-xml", "-extract", "CFBundleURLTypes.0", "xml1", "-o", "-", "\(inputs)/Info.plist"),
        run("extract-json-fragment", "-extract", "CFBundleURLTypes.0.CFBundleURLSchemes.1", "json", "\(inputs)/Info.plist"),
        run("extract-escaped-dot", "-extract", "com\\.example\\.dotted", "raw", "\(inputs)/Info.plist"),
        run("extract-missing", "-extract", "CFBundleURLTypes.3", "raw", "\(inputs)/Info.plist"),
        run("extract-expect-mismatch", "-extract", "CFBundleVersion", "raw", "-expect", "string", "\(inputs)/Info.plist"),
        run("type", "-type", "Scale", "\(inputs)/Info.plist"),
        run("type-container", "-type", "CFBundleURLTypes.0", "\(inputs)/Info.plist"),
        run("type-missing", "-type", "Nope", "\(inputs)/Info.plist"),
        GoldenCase("edit-insert-replace-remove",
                   .copy("Apps/plist/inputs/settings.plist", to: "s.plist"),
                   .run(["-insert", "theme", "-string", "dark", "$TMP/s.plist"]),
                   .run(["-insert", "theme", "-string", "light", "$TMP/s.plist"]),
                   .run(["-replace", "launches", "-integer", "4", "$TMP/s.plist"]),
                   .run(["-insert", "tags.0", "-string", "first", "$TMP/s.plist"]),
                   .run(["-insert", "tags", "-string", "last", "-append", "$TMP/s.plist"]),
                   .run(["-insert", "window.fullScreen", "-bool", "YES", "$TMP/s.plist"]),
                   .run(["-insert", "opened", "-date", "2024-01-31T12:00:00Z", "$TMP/s.plist"]),
                   .run(["-insert", "key", "-data", "AAEC/w==", "$TMP/s.plist"]),
                   .run(["-insert", "scale", "-float", "1.5", "$TMP/s.plist"]),
                   .run(["-insert", "list", "-array", "$TMP/s.plist"]),
                   .run(["-insert", "fromJSON", "-json", "{\"b\":[1,2.5,true],\"a\":\"x\"}", "$TMP/s.plist"]),
                   .run(["-insert", "fromXML", "-xml", "<dict><key>k</key><integer>7</integer></dict>", "$TMP/s.plist"]),
                   .run(["-remove", "empty", "$TMP/s.plist"]),
                   .run(["-remove", "empty", "$TMP/s.plist"]),
                   .run(["-insert", "missing.child", "-string", "x", "$TMP/s.plist"]),
                   .run(["-p", "$TMP/s.plist"])),
        GoldenCase("edit-binary-stays-binary-with-o",
                   .copy("PlistCodec/apple/cfpropertylist-ruby/dictionary.plist", to: "d.plist"),
                   .run(["-replace", "added", "-integer", "1", "-o", "$TMP/out.plist", "$TMP/d.plist"]),
                   .run(["-type", "added", "$TMP/out.plist"]),
                   .run(["-extract", "added", "raw", "$TMP/d.plist"])),
        run("create-xml", "-create", "xml1", "-"),
        run("create-json", "-create", "json", "-"),
        run("usage-missing-format", "-convert"),
        run("usage-unknown-format", "-convert", "yaml", "x.plist"),
        run("usage-unknown-option", "-lint", "-q", "x.plist"),
        run("usage-no-files", "-p"),
        run("usage-insert-bad-type", "-insert", "a", "-number", "1", "x.plist"),
        run("usage-expect-without-extract", "-lint", "-expect", "string", "x.plist"),
    ]
}
