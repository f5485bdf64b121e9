import Foundation

/// Options for reading property lists.
///
/// The defaults read what Foundation reads; set them for untrusted input or a strict check:
///
/// ```swift
/// let options = PlistReadOptions(maxDepth: 64, maxValueCount: 100_000, strict: true)
/// let value = try PlistValue(parsing: upload, options: options)
/// var decoder = PlistDecoder()
/// decoder.options = options
/// ```
public struct PlistReadOptions: Hashable, Sendable {
    /// The deepest nesting of arrays and dictionaries accepted; deeper input is a `.tooDeep` error.
    public var maxDepth: Int
    /// The most values a file may read into, counting every shared binary object at each place it
    /// is referenced: the number of `PlistValue`s in the tree read (scalars, arrays and dictionaries,
    /// the top value included; dictionary keys are not values). More is a `.tooLarge` error.
    ///
    /// A binary property list refers to objects by number, so one array may be referenced from many
    /// places, and the reader shares it rather than reading it again. A file of a few hundred bytes
    /// can so describe a value of 2^60 entries: it reads in microseconds, but comparing, writing,
    /// converting or decoding it walks every entry. The limit is counted while the file is checked,
    /// before anything is built, so every binary path refuses such a file at once: reading a
    /// `PlistValue`, `PlistDecoder`, `PlistStreaming.validate` and the conversions. XML and OpenStep
    /// text cannot share, so their values are bounded by their length, but they are counted against
    /// the same limit, so one setting bounds a read whatever the format.
    ///
    /// The default, 2^26 (about 67 million), is above any file a program writes on purpose: a value
    /// that large takes gigabytes of memory once read. Raise it to read larger files; lower it (a
    /// server reading uploads, a fuzzer) to bound the work a small file can cause.
    public var maxValueCount: Int
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

    /// Options with Foundation's reading rules, a nesting limit of 512 and an expanded-size limit of
    /// 2^26 values.
    public init(maxDepth: Int = 512, maxValueCount: Int = PlistReadOptions.defaultMaxValueCount,
                dates: PlistWriteMode = .foundation, strict: Bool = false) {
        self.maxDepth = maxDepth
        self.maxValueCount = maxValueCount
        self.dates = dates
        self.strict = strict
    }

    /// The default `maxValueCount`: 2^26.
    public static let defaultMaxValueCount = 1 << 26
}
