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

    public init(_ kind: Kind, _ message: String, at location: Location = .none) {
        self.kind = kind
        self.message = message
        self.location = location
    }

    public var description: String {
        location == .none ? message : "\(message) (\(location))"
    }
}

/// Options for reading property lists.
public struct PlistReadOptions: Hashable, Sendable {
    /// The deepest nesting of arrays and dictionaries accepted; deeper input is a `.tooDeep` error.
    public var maxDepth: Int
    /// Whose reader XML `<date>` text is read as: `.foundation` (the default), as `PropertyListDecoder`
    /// reads it, Julian before 1582-10-15; `.coreFoundation`, as `PropertyListSerialization` (and
    /// `plutil`) reads it, proleptic Gregorian throughout, a leading `-` making the year negative.
    /// Each is the exact inverse of the writer mode of its name, and out-of-range fields carry over
    /// as that reader carries them.
    public var dates: PlistWriteMode
    /// Refuse what Foundation tolerates: text after the root element, a `<key>` where a value
    /// belongs, out-of-range date fields (month 13), bytes above 0x7F in a binary ASCII string,
    /// unpaired UTF-16 surrogates, an unterminated OpenStep comment, a file that starts `bplist`
    /// without a binary trailer (Foundation reads it as OpenStep text).
    /// `false` (the default) reads each as Foundation does; `plist -lint -strict` sets it.
    public var strict: Bool

    /// Options with Foundation's reading rules and a nesting limit of 512.
    public init(maxDepth: Int = 512, dates: PlistWriteMode = .foundation, strict: Bool = false) {
        self.maxDepth = maxDepth
        self.dates = dates
        self.strict = strict
    }
}

/// The formats property lists come in.
public enum PlistFormat: String, Hashable, Sendable, CaseIterable {
    /// `<?xml ...><plist version="1.0">`: readable and writable.
    case xml
    /// `bplist00`: readable and writable.
    case binary
    /// Old-style NeXT/OpenStep text (`{ key = value; }`): readable only, as on Apple platforms.
    case openStep

    /// Guesses the format of `data` from its first bytes.
    ///
    /// `bplist` starts a binary file; `<?xml`, `<!DOCTYPE`, `<plist` or a root element such as
    /// `<dict>` (after optional whitespace and a UTF-8 byte-order mark), or a UTF-16 byte-order mark,
    /// starts an XML file; anything else is read as OpenStep text (`<0fbd77>` there is data).
    public static func detect(_ data: Data) -> PlistFormat {
        if data.starts(with: Array("bplist".utf8)) { return .binary }
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) {
            // UTF-16 text (XML, or an OpenStep strings file): look at its first characters as UTF-8.
            let bigEndian = data.first == 0xFE
            let prefix = data.dropFirst(2).prefix(512)
            let units = stride(from: prefix.startIndex, to: prefix.endIndex - 1, by: 2).map { i -> UInt16 in
                let a = UInt16(prefix[i]), b = UInt16(prefix[i + 1])
                return bigEndian ? a << 8 | b : b << 8 | a
            }
            let text = String(decoding: units, as: UTF16.self)
            return detect(Data(text.utf8)) == .xml ? .xml : .openStep
        }
        var bytes = data.prefix(512)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        bytes = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard bytes.first == UInt8(ascii: "<"), let next = bytes.dropFirst().first else { return .openStep }
        if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") { return .xml }
        // An element name, not hex digits: `<dict>`, `<array/>`, `<plist version=...>`.
        let name = bytes.dropFirst().prefix { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }
        let elements = ["plist", "dict", "array", "string", "integer", "real", "true", "false", "date", "data"]
        guard let after = bytes.dropFirst(1 + name.count).first,
              after == UInt8(ascii: ">") || after == UInt8(ascii: "/") || after == 0x20 else { return .openStep }
        return elements.contains(String(decoding: name, as: UTF8.self)) ? .xml : .openStep
    }
}

/// Which Apple writer's byte layout to reproduce.
public enum PlistWriteMode: Hashable, Sendable {
    /// `PropertyListEncoder` (swift-foundation): minimal offset widths, sharing of equal scalars.
    case foundation
    /// CoreFoundation (`PropertyListSerialization`, `plutil`): power-of-two widths, `%.17g` reals,
    /// distinct zeros, repeated booleans written as CF writes them.
    case coreFoundation
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
