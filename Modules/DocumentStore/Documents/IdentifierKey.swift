import Foundation

/// A document identifier with its hash, computed once: the identity map and a transaction's records
/// (``IdentifierTable``) find it by this hash, and never hash the identifier's text again, not even
/// when they grow.
struct IdentifierKey {
    let identifier: String
    /// The identifier's `hashValue` (Swift's hash, seeded per process) with its top bit set, so it is
    /// never 0, which marks an empty slot.
    let hash: Int

    @inline(__always)
    init(_ identifier: String) {
        self.identifier = identifier
        hash = identifier.hashValue | Int.min
    }

    /// A key whose hash is known: one an ``IdentifierTable`` stored.
    @inline(__always)
    init(identifier: String, hash: Int) {
        self.identifier = identifier
        self.hash = hash
    }
}
