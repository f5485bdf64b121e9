import Foundation

/// What `XMLPlistScanner` hands on as it reads an XML property list: containers opening and
/// closing, dictionary keys, and finished values, in document order.
///
/// The scanner has already checked everything by the time a sink hears of it (tags, nesting, depth,
/// a key before each dictionary value), so a sink only keeps what it needs and never throws. The
/// scanner is generic over its sink and specialized for each one, so these calls are direct (and
/// mostly inlined), never through an existential: one event per element of a large file.
protocol XMLPlistSink {
    /// An `<array>` or `<dict>` with content opens. (An empty `<array/>` or `<dict/>` arrives as a
    /// value instead.)
    mutating func openContainer(isDictionary: Bool)
    /// The `<key>` of the next value of the innermost open dictionary.
    mutating func key(_ key: String)
    /// A finished scalar (or empty container); `end` is the input offset just after it.
    mutating func value(_ value: PlistValue, end: Int)
    /// The innermost open container closes; `end` is the input offset just after its closing tag.
    mutating func closeContainer(end: Int)
}

/// Keeps nothing: what is left when the scanner only checks a document (`PlistStreaming.validate`).
struct XMLPlistValidatingSink: XMLPlistSink {
    func openContainer(isDictionary: Bool) {}
    func key(_ key: String) {}
    func value(_ value: PlistValue, end: Int) {}
    func closeContainer(end: Int) {}
}
