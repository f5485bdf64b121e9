import Foundation
import PlistCodec

extension DefaultsSuite {
    /// The suite file's coding: a dictionary property list, its keys written sorted, in the format
    /// the file already has; equal contents are not rewritten.
    static func coding(newFileFormat: PlistFormat) -> PlistDocument<Contents>.Coding {
        PlistDocument<Contents>.Coding(
            empty: { Contents(values: PlistDictionary(), format: newFileFormat) },
            decode: { data in
                let value = try PlistValue(parsing: data)
                guard case .dictionary(let dict) = value else {
                    throw PlistError(.malformed, "the top-level object is a \(value.kindName), not a dict")
                }
                // OpenStep text can be read but not written: such a file is rewritten as XML, still text.
                let format = PlistFormat.detect(data)
                return Contents(values: dict, format: format == .openStep ? .xml : format)
            },
            encode: { new, old in
                // Key order is not a change: an encoded Codable value lists its keys in declaration
                // order, the file in sorted order, and rewriting it for that would tell every observer.
                guard !new.values.hasSameContents(as: old.values) else { return nil }
                var sorted = new.values
                sorted.sortKeys()
                return try PlistValue.dictionary(sorted).serialized(as: old.format)
            },
            written: { data, contents in
                guard contents.format != .binary, case .dictionary(let written)? = try? PlistValue(parsing: data) else {
                    return contents
                }
                return Contents(values: written, format: contents.format)
            })
    }
}
