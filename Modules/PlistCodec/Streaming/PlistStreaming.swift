import Foundation

/// Checks and converts property-list files without building a `PlistValue` tree, for files too large
/// to hold as one.
///
/// Binary files are read in place (pass a memory-mapped `Data` to keep even the input out of the
/// heap); the answers are those of the tree path: `validate` throws the `PlistError` that
/// `PlistValue(parsing:)` throws, and `writeXML(fromBinary:)` writes the bytes of
/// `PlistValue(parsing:).serialized(as: .xml, mode:)`.
///
/// ```swift
/// let data = try Data(contentsOf: url, options: .alwaysMapped)
/// try PlistStreaming.validate(data)
/// try PlistStreaming.writeXML(fromBinary: data, mode: .coreFoundation) { chunk in handle.write(chunk) }
/// ```
public enum PlistStreaming {
    /// Checks that `data` is a readable property list in any format.
    ///
    /// Binary files are checked object by object, with a few bytes of bookkeeping per object; XML is
    /// scanned as `PlistValue(parsing:)` scans it, keeping no values; OpenStep text is parsed.
    ///
    /// - Throws: The `PlistError` `PlistValue(parsing:options:)` would throw for the same bytes.
    public static func validate(_ data: Data, options: PlistReadOptions = PlistReadOptions()) throws {
        switch PlistFormat.detect(data) {
        case .binary: break
        case .xml:
            try TextCursor.withUTF8Text(data) { text, base in
                var scanner = XMLPlistScanner(text: text, base: base, options: options, sink: XMLPlistValidatingSink())
                try scanner.scanDocument()
            }
            return
        case .openStep:
            _ = try PlistValue(parsing: data, options: options)
            return
        }
        try data.withUnsafeBytes { raw in
            let doc: BinaryPlistFile<UnsafeRawBufferPointer>
            do {
                doc = try BinaryPlistFile(bytes: raw, strict: options.strict)
            } catch let error as PlistError {
                _ = try BinaryPlistReader.textFallback(data, options: options, after: error)
                return
            }
            try BinaryPlistValidator.validate(doc, options: options)
        }
    }

    /// Writes the binary property list `data` as an XML property list, handing the text to `emit` in
    /// chunks of about `chunkSize` bytes.
    ///
    /// The file is validated completely before the first chunk is emitted, so a malformed file emits
    /// nothing. Bytes that start `bplist` without a binary trailer are OpenStep text to Foundation,
    /// and unless `options.strict` their value's XML is emitted in one chunk, as the tree path writes it.
    ///
    /// - Parameters:
    ///   - data: A `bplist00` file.
    ///   - mode: Whose XML layout to reproduce, as in `serialized(as:mode:)`.
    ///   - options: How strictly to read `data`: ``PlistReadOptions/strict`` refuses what Foundation
    ///     repairs.
    ///   - chunkSize: Roughly how many bytes to gather before each call to `emit`.
    ///   - emit: Receives the output in order; an error it throws stops the conversion.
    /// - Throws: `PlistError` for a malformed file (kind `.unknownFormat` when it is not binary) or a
    ///   value XML cannot hold; anything `emit` throws.
    public static func writeXML(fromBinary data: Data, mode: PlistWriteMode = .foundation,
                                options: PlistReadOptions = PlistReadOptions(), chunkSize: Int = 1 << 20,
                                emit: (Data) throws -> Void) throws {
        guard PlistFormat.detect(data) == .binary else {
            throw PlistError(.unknownFormat, "binary plist: missing 'bplist0' header", at: .byte(0))
        }
        try data.withUnsafeBytes { raw in
            let doc: BinaryPlistFile<UnsafeRawBufferPointer>
            do {
                doc = try BinaryPlistFile(bytes: raw, strict: options.strict)
            } catch let error as PlistError {
                // Not binary after all: Foundation reads such bytes as OpenStep text, as the tree path does.
                try emit(BinaryPlistReader.textFallback(data, options: options, after: error).serialized(as: .xml, mode: mode))
                return
            }
            try BinaryPlistValidator.validate(doc, options: options)
            try BinaryToXMLStream.write(doc, mode: mode, options: options, chunkSize: chunkSize, emit: emit)
        }
    }

    /// Writes the XML property list `data` as a binary property list, handing the bytes to `emit` in
    /// chunks of about `chunkSize` bytes.
    ///
    /// The bytes are those of `PlistValue(parsing:).serialized(as: .binary, mode:)`. A root array (and
    /// arrays nested only in arrays) is converted element by element: each element is parsed, added to
    /// a compact object table that keeps every scalar only as its encoded bytes, and dropped; input
    /// already read is handed back to the system when `data` is a memory-mapped file. A document
    /// whose root is a dictionary is held as a value one top-level entry at a time no better than the
    /// tree path. Nothing is emitted unless the whole document parses.
    ///
    /// - Throws: The `PlistError` `PlistValue(parsing:)` would throw (kind `.unknownFormat` when
    ///   `data` is not XML); anything `emit` throws.
    public static func writeBinary(fromXML data: Data, mode: PlistWriteMode = .foundation,
                                   options: PlistReadOptions = PlistReadOptions(), chunkSize: Int = 1 << 20,
                                   emit: (Data) throws -> Void) throws {
        guard PlistFormat.detect(data) == .xml else {
            throw PlistError(.unknownFormat, "XML property list: the input is not XML", at: .line(1, column: 1))
        }
        var table = try TextCursor.withUTF8Text(data) { text, base in
            let sink = XMLPlistStreamingSink(table: StreamingBinaryTable(mode: mode), input: base)
            var scanner = XMLPlistScanner(text: text, base: base, options: options, sink: sink)
            try scanner.scanDocument()
            return scanner.sink.table
        }
        try table.serialize(chunkSize: max(chunkSize, 4096), emit: emit)
    }
}

/// Hands parsed input pages back to the kernel.
enum InputPages {
    /// `MADV_PAGEOUT` (Linux 5.4): reclaim the pages; harmless on memory that is not a file mapping.
    private static let pageOut: Int32 = 21

    /// Releases the whole pages between `from` and `offset` of `base`; returns the new released offset.
    static func release(_ base: UnsafePointer<UInt8>, upTo offset: Int, from released: Int) -> Int {
        #if os(Linux)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let startAddress = (Int(bitPattern: base) + released + page - 1) / page * page
        let endAddress = (Int(bitPattern: base) + offset) / page * page
        guard endAddress > startAddress, let start = UnsafeMutableRawPointer(bitPattern: startAddress) else { return released }
        _ = madvise(start, endAddress - startAddress, pageOut)
        return endAddress - Int(bitPattern: base)
        #else
        return released
        #endif
    }
}
