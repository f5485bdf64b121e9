import Foundation

/// Reads `bplist00` files into `PlistValue`.
///
/// Two passes over the file's bytes, read in place: `BinaryPlistWalker` checks every object
/// reachable from the top one (with `BinaryPlistShareMarks` as its sink, so every error here is the
/// streaming paths' and the validator's too), then `BinaryPlistTreeBuilder` builds the tree without
/// checking again. Each object referenced from several places is decoded once: a shared container
/// (legal, if unusual) is shared rather than expanded again, so a file cannot make the reader do
/// exponential work. A reference to an object still being decoded is a cycle and an error.
struct BinaryPlistReader {
    let data: Data
    let options: PlistReadOptions

    func read() throws -> PlistValue {
        try data.withUnsafeBytes { raw in
            let doc: BinaryPlistFile<UnsafeRawBufferPointer>
            do {
                doc = try BinaryPlistFile(bytes: raw, strict: options.strict)
            } catch let error as PlistError {
                return try Self.textFallback(data, options: options, after: error)
            }
            let marks = try doc.walk(options, into: BinaryPlistShareMarks(objectCount: doc.numObjects))
            var builder = BinaryPlistTreeBuilder(doc: doc, marks: marks)
            return builder.value(doc.topObject)
        }
    }

    /// What Foundation does with a file that starts with `bplist` but whose header or trailer is not
    /// a binary property list's: it reads the bytes as OpenStep text (`bplist00` alone is that string,
    /// and `bplist00 = "...";` a strings file, however long). Returns the text's value when it parses
    /// and `options` are not strict; otherwise throws `error`, the binary reader's account of what is
    /// wrong. Text that parses but holds more than `options.maxValueCount` values is refused as
    /// `.tooLarge`: it is readable, and the limit is what refuses it.
    static func textFallback(_ data: Data, options: PlistReadOptions, after error: PlistError) throws -> PlistValue {
        let binaryError = error
        guard !options.strict else { throw binaryError }
        do {
            return try OpenStepPlistReader(data: data, options: options).read()
        } catch let text as PlistError where text.kind == .tooLarge {
            throw text
        } catch {
            throw binaryError
        }
    }
}
