import Foundation

/// Reads XML property lists into `PlistValue`.
///
/// Accepts what Apple's parsers accept for files that Apple's writers produce, and a little more:
/// an `<?xml ...?>` declaration, a `<!DOCTYPE ...>`, comments and whitespace between elements, a
/// `<plist>` wrapper (optional, as in Apple's parser), a UTF-8 byte-order mark, and UTF-16 with a
/// byte-order mark (transcoded to UTF-8 first).
///
/// It is `XMLPlistScanner` with the sink that builds the tree (`XMLPlistTreeSink`); the streaming
/// paths scan with other sinks, so every error here is theirs too. Nesting is kept on explicit
/// stacks, so input nested deeper than `options.maxDepth` fails with `.tooDeep` rather than
/// overflowing the stack.
///
/// Every error is a `PlistError` located with `.line(l, column: c)`: 1-based, the column counting
/// **bytes** of UTF-8 text (see `TextCursor`).
///
/// Where this reader differs from `PropertyListSerialization`: it rejects input Apple repairs or
/// guesses at (characters outside base64 and incomplete groups in `<data>`, content after the root,
/// `<key>` outside a `<dict>`, `&#x;`, date fields out of range such as month 13), and it accepts a
/// little more (integers over the whole `Int128` range, where Apple stops at `-2^63 ... 2^64-1`;
/// `<data/>`; whitespace after an `<integer>`'s digits).
///
/// ```swift
/// let value = try XMLPlistReader(data: data, options: PlistReadOptions()).read()
/// ```
struct XMLPlistReader {
    let data: Data
    let options: PlistReadOptions

    /// Parses the whole document.
    func read() throws -> PlistValue {
        let options = options
        return try TextCursor.withUTF8Text(data) { text, base in
            var scanner = XMLPlistScanner(text: text, base: base, options: options, sink: XMLPlistTreeSink())
            try scanner.scanDocument()
            // A scan that returns has seen the root element close, so this never throws.
            guard let root = scanner.sink.root else { throw scanner.lexer.error(.truncated, "expected a value", at: text.count) }
            return root
        }
    }
}
