import Foundation
import PlistCodec

/// The PlistCodec scenario: a small library written as XML and binary, read back, compared.
struct PlistCodecStep: TourStep {
    var name: String { "PlistCodec" }
    var summary: String { "encode a Library as XML and binary plists, read both back, compare" }

    /// A book in the sample library: non-ASCII text, a date, a thumbnail and an optional.
    struct Book: Codable, Equatable {
        var title: String
        var author: String
        var year: Int
        var rating: Double
        var added: Date
        var cover: Data
        var subtitle: String?
        var tags: [String]
    }

    /// The sample model the step writes.
    struct Library: Codable, Equatable {
        var name: String
        var updated: Date
        var books: [Book]
    }

    /// A fixed sample, so every run writes the same bytes. Dates are whole seconds because XML
    /// property lists keep only whole seconds.
    static let sample = Library(
        name: "Bücherei am Fluss",
        updated: Date(timeIntervalSince1970: 1_735_689_600), // 2025-01-01T00:00:00Z
        books: [
            Book(title: "Cien años de soledad", author: "Gabriel García Márquez", year: 1967, rating: 4.5,
                 added: Date(timeIntervalSince1970: 1_700_000_000), cover: thumbnail(seed: 1),
                 subtitle: nil, tags: ["novel", "magic realism"]),
            Book(title: "吾輩は猫である", author: "夏目漱石", year: 1905, rating: 4.25,
                 added: Date(timeIntervalSince1970: 1_710_000_000), cover: thumbnail(seed: 2),
                 subtitle: "I Am a Cat", tags: ["novel", "satire"]),
            Book(title: "Война и мир", author: "Лев Толстой", year: 1869, rating: 5,
                 added: Date(timeIntervalSince1970: 1_720_000_000), cover: thumbnail(seed: 3),
                 subtitle: nil, tags: []),
            Book(title: "L'Étranger", author: "Albert Camus", year: 1942, rating: 3.75,
                 added: Date(timeIntervalSince1970: 1_730_000_000), cover: Data(),
                 subtitle: "Roman & récit", tags: ["novel"]),
        ]
    )

    /// A tiny stand-in for a cover image: a PNG signature followed by a deterministic pattern.
    static func thumbnail(seed: UInt8) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<56).map { $0 &* 37 &+ seed })
    }

    @MainActor func run(_ context: TourContext) async throws {
        let library = Self.sample
        context.say("sample: \"\(library.name)\" with \(library.books.count) books")

        for format in [PlistFormat.xml, .binary] {
            var encoder = PlistEncoder()
            encoder.outputFormat = format
            let bytes = try encoder.encode(library)
            let url = context.file(format == .xml ? "library.xml.plist" : "library.binary.plist")
            try bytes.write(to: url)
            context.say("")
            context.say("wrote \(url.path) (\(bytes.count) bytes, \(format))")

            if format == .xml {
                context.say("first lines:")
                let text = String(decoding: bytes, as: UTF8.self)
                for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(10) {
                    context.say("  | " + line.replacingOccurrences(of: "\t", with: "  "))
                }
            }

            let read = try Data(contentsOf: url)
            let detected = PlistFormat.detect(read)
            try check(detected == format, "detected \(detected) for a file written as \(format)")
            let decoded = try PlistDecoder().decode(Library.self, from: read)
            try check(decoded == library, "\(format): what was read back differs from what was written")
            context.say("read it back with PlistDecoder (detected \(detected)): equal to the original")

            // The promise of the module: Foundation reads our files, and writes the same bytes.
            let foundation = try PropertyListDecoder().decode(Library.self, from: read)
            try check(foundation == library, "\(format): Foundation's PropertyListDecoder reads something else")
            let reference = PropertyListEncoder()
            reference.outputFormat = format == .xml ? .xml : .binary
            let same = try reference.encode(library) == bytes
            try check(same, "\(format): the bytes differ from Foundation's PropertyListEncoder")
            context.say("Foundation's PropertyListDecoder reads the same; PropertyListEncoder writes the same bytes")

            if format == .binary {
                context.say("")
                context.say("what was read:")
                context.say("  \(decoded.name), updated \(decoded.updated.formatted(.iso8601))")
                for book in decoded.books {
                    let subtitle = book.subtitle.map { " - \($0)" } ?? ""
                    context.say("  \(book.year)  \(book.title)\(subtitle)  by \(book.author), rating \(book.rating), "
                        + "cover \(book.cover.count) bytes, tags [\(book.tags.joined(separator: ", "))]")
                }
            }
        }
    }
}
