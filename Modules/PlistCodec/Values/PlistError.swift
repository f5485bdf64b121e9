import Foundation

/// An error reading or writing a property list: what went wrong and where.
///
/// Every malformed input yields one of these, never a crash. `location` says where in the input
/// the problem was found: a byte offset for binary files, a line and column for text formats.
///
/// ```swift
/// do { _ = try PlistValue(parsing: data) }
/// catch let error as PlistError { print(error) } // "binary plist: offset 0x1c of object 3 ... (at byte 40)"
/// ```
public struct PlistError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: String, Hashable, Sendable {
        /// The data is not in any property-list format.
        case unknownFormat
        /// The data ends before the structure it describes.
        case truncated
        /// A structural rule of the format is broken (bad marker, bad trailer, bad tag).
        case malformed
        /// An offset, reference or count points outside the file or the object table.
        case outOfRange
        /// An object refers back to one of its own ancestors.
        case cycle
        /// Nesting is deeper than the configured maximum.
        case tooDeep
        /// A file holds more than `PlistReadOptions.maxValueCount` values, each shared binary object
        /// counted wherever it is referenced.
        case tooLarge
        /// A string is not valid UTF-8/UTF-16, or has a character the format cannot hold.
        case invalidString
        /// A `<data>` element is not valid base64.
        case invalidBase64
        /// A `<date>` is not an ISO 8601 UTC date.
        case invalidDate
        /// A number cannot be parsed or does not fit.
        case invalidNumber
        /// The value cannot be written in the requested format.
        case unsupportedValue
    }

    /// Where in the input the problem was found.
    public enum Location: Hashable, Sendable, CustomStringConvertible {
        /// A byte offset into a binary property list.
        case byte(Int)
        /// A 1-based line and column in a text (XML or OpenStep) property list.
        case line(Int, column: Int)
        /// No position applies (for example, an error writing a value).
        case none

        public var description: String {
            switch self {
            case .byte(let o): return "at byte \(o)"
            case .line(let l, let c): return "at line \(l), column \(c)"
            case .none: return ""
            }
        }
    }

    /// The category of failure.
    public var kind: Kind
    /// Where it happened.
    public var location: Location
    /// A sentence that says what was wrong.
    public var message: String

    /// An error of `kind`, saying `message`, at `location`: what the readers and writers throw, and
    /// what code that validates a property list of its own may throw the same way.
    ///
    /// ```swift
    /// throw PlistError(.malformed, "expected <integer> after <key>launches</key>", at: .line(12, column: 5))
    /// ```
    ///
    /// - Parameters:
    ///   - kind: The category of failure.
    ///   - message: A sentence that says what was wrong, without the location.
    ///   - location: Where it happened; ``Location/none`` when nowhere in particular.
    public init(_ kind: Kind, _ message: String, at location: Location = .none) {
        self.kind = kind
        self.message = message
        self.location = location
    }

    public var description: String {
        location == .none ? message : "\(message) (\(location))"
    }
}

extension PlistError {
    /// The `PlistError` that `error` is or wraps: `PlistDecoder` reports malformed input as
    /// `DecodingError.dataCorrupted` with the `PlistError` as its underlying error.
    ///
    /// ```swift
    /// do { _ = try PlistDecoder().decode(Settings.self, from: data) }
    /// catch { if let location = PlistError.found(in: error)?.location { print("malformed at \(location)") } }
    /// ```
    public static func found(in error: any Error) -> PlistError? {
        if let error = error as? PlistError { return error }
        if let error = error as? DecodingError, case .dataCorrupted(let context) = error,
           let underlying = context.underlyingError {
            return found(in: underlying)
        }
        return nil
    }
}
