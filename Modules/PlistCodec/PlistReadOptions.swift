import Foundation

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
