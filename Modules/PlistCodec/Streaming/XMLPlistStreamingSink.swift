import Foundation

/// Feeds a `StreamingBinaryTable` from `XMLPlistScanner`'s events, for XML to binary conversion of
/// files too large to hold as one value.
///
/// Arrays that are the root or nested only in arrays are opened in the table and receive each
/// element as soon as it is complete, so only one element (a dictionary and what it holds) is ever a
/// `PlistValue`: everything below the streamed arrays goes through an `XMLPlistTreeSink`.
struct XMLPlistStreamingSink: XMLPlistSink {
    var table: StreamingBinaryTable
    private var tree = XMLPlistTreeSink()
    /// How many containers are open, and how many of the outermost ones stream into `table`.
    private var depth = 0
    private var streamed = 0
    /// The input, whose pages already parsed are handed back to the kernel as the scan goes.
    private let input: UnsafePointer<UInt8>
    private var released = 0

    init(table: StreamingBinaryTable, input: UnsafePointer<UInt8>) {
        self.table = table
        self.input = input
    }

    mutating func openContainer(isDictionary: Bool) {
        if !isDictionary, depth == streamed {
            streamed += 1
            table.openArray()
        } else {
            tree.openContainer(isDictionary: isDictionary)
        }
        depth += 1
    }

    mutating func key(_ key: String) {
        // Keys belong to dictionaries, and dictionaries never stream.
        tree.key(key)
    }

    mutating func value(_ value: PlistValue, end: Int) {
        if depth == streamed { addToTable(value, end: end) } else { tree.add(value) }
    }

    mutating func closeContainer(end: Int) {
        depth -= 1
        if depth < streamed {
            streamed -= 1
            table.closeArray()
            return
        }
        let value = tree.close()
        if depth == streamed { addToTable(value, end: end) } else { tree.add(value) }
    }

    /// Adds a finished element of a streamed array (or the root) to the table.
    private mutating func addToTable(_ value: PlistValue, end: Int) {
        table.add(value)
        guard depth > 0 else { return }
        // Every 16 MB, ask the kernel to drop the pages already parsed: for a mapped file they are
        // read back from the file if an error message needs them; other memory is kept.
        guard end - released >= 1 << 24 else { return }
        released = InputPages.release(input, upTo: end, from: released)
    }
}
