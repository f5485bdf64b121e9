import Foundation

/// Reads `bplist00` files into `PlistValue`.
///
/// It is `BinaryPlistWalker` with the sink that builds the tree (`BinaryPlistTreeSink`); the
/// streaming paths walk with other sinks, so every error here is theirs too. Each object is decoded
/// once: a container referenced from several places (legal, if unusual) is shared rather than
/// expanded again, so a file cannot make the reader do exponential work. A reference to an object
/// still being decoded is a cycle and an error.
struct BinaryPlistReader {
    let data: Data
    let options: PlistReadOptions

    func read() throws -> PlistValue {
        let doc: BinaryPlistDocument
        do {
            doc = try BinaryPlistDocument(data, strict: options.strict)
        } catch let error as PlistError {
            return try Self.textFallback(data, options: options, after: error)
        }
        let tree = try doc.walk(maxDepth: options.maxDepth, into: BinaryPlistTreeSink(objectCount: doc.numObjects))
        return tree.object(doc.topObject)
    }

    /// What Foundation does with a file that starts with `bplist` but whose header or trailer is not
    /// a binary property list's: it reads the bytes as OpenStep text (`bplist00` alone is that string,
    /// and `bplist00 = "...";` a strings file, however long). Returns the text's value when it parses
    /// and `options` are not strict; otherwise throws `error`, the binary reader's account of what is
    /// wrong.
    static func textFallback(_ data: Data, options: PlistReadOptions, after error: PlistError) throws -> PlistValue {
        guard !options.strict, let value = try? OpenStepPlistReader(data: data, options: options).read() else {
            throw error
        }
        return value
    }
}
