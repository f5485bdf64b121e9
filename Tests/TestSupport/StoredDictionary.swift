import Foundation
import PlistCodec

/// The top-level dictionary of the property-list file at `url`, read without any store, so a test
/// checks what is on disk rather than what a store's cache says.
///
/// - Throws: The read's error, a `PlistError` when the file does not parse (a torn or corrupt file),
///   or `.malformed` when its top level is not a dictionary.
public func storedDictionary(_ url: URL) throws -> PlistDictionary {
    guard case .dictionary(let dictionary) = try PlistValue(parsing: Data(contentsOf: url)) else {
        throw PlistError(.malformed, "not a dictionary")
    }
    return dictionary
}
