import Foundation
import PlistCodec
import PlistTool

/// The `plist` scenario: plutil's command lines run in-process on a binary file the step writes.
struct PlistStep: TourStep {
    var name: String { "Plist" }
    var summary: String { "the plist command (a plutil for Linux): lint, convert to XML and back, print, extract, insert" }

    /// A small Info.plist-like file.
    struct AppInfo: Codable {
        var CFBundleName: String
        var CFBundleVersion: Int
        var LSRequiresIPhoneOS: Bool
        var CFBundleURLSchemes: [String]
    }

    /// What one `plist` run printed.
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs `plist arguments` in-process, capturing its output.
    func plist(_ arguments: [String], _ context: TourContext) -> Run {
        final class Buffers { var output = Data(); var errors = Data() }  // the closures run synchronously, on this thread
        let buffers = Buffers()
        let status = PlistTool.run(arguments: arguments, standardInput: { Data() },
                                   standardOutput: { buffers.output += $0 }, standardError: { buffers.errors += $0 })
        context.say("$ plist " + arguments.map { $0.replacingOccurrences(of: context.folder.path + "/", with: "") }.joined(separator: " "))
        return Run(status: status, output: String(decoding: buffers.output, as: UTF8.self),
                   errors: String(decoding: buffers.errors, as: UTF8.self))
    }

    func show(_ text: String, _ context: TourContext, lines: Int = 12) {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        for line in all.prefix(lines) { context.say("  " + line.replacingOccurrences(of: "\t", with: "    ")) }
        if all.count > lines { context.say("  ... (\(all.count - lines) more lines)") }
    }

    @MainActor func run(_ context: TourContext) async throws {
        let file = context.file("Info.plist")
        var encoder = PlistEncoder()
        encoder.outputFormat = .binary
        let info = AppInfo(CFBundleName: "Tour", CFBundleVersion: 7, LSRequiresIPhoneOS: true, CFBundleURLSchemes: ["tour", "tour-beta"])
        let original = try encoder.encode(info)
        try original.write(to: file)
        context.say("wrote Info.plist: \(original.count) bytes, binary (PlistEncoder)")

        let lint = plist(["-lint", file.path], context)
        show(lint.output.replacingOccurrences(of: context.folder.path + "/", with: ""), context)
        try check(lint.status == 0 && lint.output.hasSuffix(": OK\n"), "-lint failed: \(lint.errors)")

        let convert = plist(["-convert", "xml1", file.path], context)
        try check(convert.status == 0, "-convert xml1 failed: \(convert.errors)")
        let xml = try Data(contentsOf: file)
        try check(PlistFormat.detect(xml) == .xml, "-convert xml1 did not write XML")
        try check(xml == (try PlistValue(parsing: original).serialized(as: .xml, mode: .coreFoundation)),
                  "the XML is not what the CoreFoundation writer writes")
        context.say("  Info.plist is now XML, \(xml.count) bytes, as plutil writes it (keys sorted):")
        show(String(decoding: xml, as: UTF8.self), context, lines: 8)

        let printed = plist(["-p", file.path], context)
        try check(printed.status == 0 && printed.output.contains("\"CFBundleName\" => \"Tour\""), "-p printed \(printed.output)")
        show(printed.output, context)

        let extract = plist(["-extract", "CFBundleURLSchemes.1", "raw", file.path], context)
        try check(extract.output == "tour-beta\n", "-extract raw printed \(extract.output)")
        show(extract.output, context)

        let insert = plist(["-insert", "CFBundleIdentifier", "-string", "com.example.tour", file.path], context)
        try check(insert.status == 0, "-insert failed: \(insert.errors)")
        let again = plist(["-insert", "CFBundleIdentifier", "-string", "other", file.path], context)
        try check(again.status == 1, "inserting an existing key succeeded")
        show(again.errors.replacingOccurrences(of: context.folder.path + "/", with: ""), context)
        let type = plist(["-type", "CFBundleIdentifier", file.path], context)
        try check(type.output == "string\n", "-type printed \(type.output)")
        show(type.output, context)

        try check(plist(["-remove", "CFBundleIdentifier", file.path], context).status == 0, "-remove failed")
        let back = plist(["-convert", "binary1", file.path], context)
        try check(back.status == 0, "-convert binary1 failed: \(back.errors)")
        let binary = try Data(contentsOf: file)
        let expected = try PlistValue(parsing: xml).serialized(as: .binary, mode: .coreFoundation)
        try check(binary == expected, "-convert binary1 did not write the CoreFoundation writer's bytes")
        let sameDocument = try PlistValue(parsing: binary).serialized(as: .xml, mode: .coreFoundation) == xml
        try check(sameDocument, "the binary file no longer holds the original document")
        context.say("  back to binary: \(binary.count) bytes, the CoreFoundation writer's layout, the same document")

        let json = plist(["-convert", "json", "-o", "-", file.path], context)
        try check(json.status == 0, "-convert json failed: \(json.errors)")
        show(json.output, context)
    }
}
