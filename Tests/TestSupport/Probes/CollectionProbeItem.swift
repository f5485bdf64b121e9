import Foundation

/// The item `collection-probe` stores (the probe links this module, and so do the tests).
///
/// Its `check` is a function of `process` and `sequence`, so a reader can tell a whole item from a
/// damaged one, and `sequence` rises within one process, so a reader can tell that none was lost.
public struct CollectionProbeItem: Codable, Equatable, Hashable, Identifiable, Sendable {
    public var process: Int
    public var sequence: Int
    public var note: String
    public var check: Data

    /// The item `sequence` of `process`, with a `noteLength`-character note.
    public init(process: Int, sequence: Int, noteLength: Int = 48) {
        self.process = process
        self.sequence = sequence
        note = String(repeating: "p\(process)s\(sequence) ", count: max(1, noteLength / 8))
        check = Self.check(process: process, sequence: sequence)
    }

    /// `process` and `sequence` together, unique across processes.
    public var id: String { "\(process)-\(sequence)" }

    /// Whether `check` is the one `process` and `sequence` give.
    public var isIntact: Bool { check == Self.check(process: process, sequence: sequence) && note.hasPrefix("p\(process)s\(sequence) ") }

    static func check(process: Int, sequence: Int) -> Data {
        var x = UInt64(bitPattern: Int64(process &* 1_000_003 &+ sequence)) &* 0x9E37_79B9_7F4A_7C15
        return Data((0..<16).map { _ in
            x ^= x >> 29
            x &*= 0xBF58_476D_1CE4_E5B9
            return UInt8(truncatingIfNeeded: x >> 56)
        })
    }
}
