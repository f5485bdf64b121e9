import Foundation

/// Checks a `bplist00` file the way `BinaryPlistReader` reads it, without building the value: the
/// sink of `BinaryPlistWalker` that keeps nothing.
///
/// The walker applies every check, so this throws the same `PlistError` (kind, message and
/// location) the reader would, while keeping only one byte of state, one height and one count per object
/// instead of a `PlistValue` tree: that is what lets `plist -lint` check a file of hundreds of
/// megabytes in little more memory than the file itself.
///
/// ```swift
/// try BinaryPlistValidator.validate(doc, options: options)
/// ```
struct BinaryPlistValidator: BinaryPlistSink {
    /// Checks the whole file from its top object.
    static func validate<Bytes>(_ doc: BinaryPlistFile<Bytes>, options: PlistReadOptions) throws {
        _ = try doc.walk(options, into: BinaryPlistValidator())
    }

    static var wantsScalarValues: Bool { false }
    var expandsSharedObjects: Bool { false }
    func scalar(_ value: PlistValue, object: Int) {}
    func shared(object: Int) {}
    func openContainer(object: Int, isDictionary: Bool, count: Int) {}
    func valueOrder(count: Int) -> Range<Int> { 0..<count }
    func closeContainer(object: Int) {}
}
