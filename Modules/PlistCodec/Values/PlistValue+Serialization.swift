import Foundation

extension PlistValue {
    /// Reads a property list in any format (binary, XML or OpenStep text), detected from its bytes.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - options: Limits such as the maximum nesting depth.
    /// - Throws: `PlistError` saying what is wrong and where.
    public init(parsing data: Data, options: PlistReadOptions = PlistReadOptions()) throws {
        switch PlistFormat.detect(data) {
        case .binary: self = try BinaryPlistReader(data: data, options: options).read()
        case .xml: self = try XMLPlistReader(data: data, options: options).read()
        case .openStep: self = try OpenStepPlistReader(data: data, options: options).read()
        }
    }

    /// Writes this value as a property list.
    ///
    /// Any value can be written, top-level scalars included (only `PlistEncoder` refuses those, as
    /// `PropertyListEncoder` does).
    ///
    /// - Parameters:
    ///   - format: `.xml` or `.binary`; `.openStep` is read-only and throws `.unsupportedValue`.
    ///   - mode: whose bytes to reproduce: `PropertyListEncoder`'s (default) or CoreFoundation's.
    /// - Throws: `PlistError` with kind `.unsupportedValue` for values the format cannot hold
    ///   (a NUL in an XML string, for instance).
    public func serialized(as format: PlistFormat, mode: PlistWriteMode = .foundation) throws -> Data {
        switch format {
        case .binary:
            return try BinaryPlistWriter(mode: mode).write(PlistNode(self))
        case .xml:
            return try ValueXMLWriter.write(self, mode: mode)
        case .openStep:
            throw PlistError(.unsupportedValue, "OpenStep property lists can be read but not written")
        }
    }
}
