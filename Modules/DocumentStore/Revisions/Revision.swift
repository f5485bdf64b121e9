import Crypto
import Foundation

/// Revision identifiers: `<generation>-<digest>`.
///
/// The generation counts the revisions from the document's first (1) along its branch. The digest is
/// SHA-256, in lowercase hexadecimal, over the parent revision's identifier (empty for a first
/// revision), a zero byte, `1` or `0` for the deleted flag, a zero byte, and the canonical JSON text
/// of the body (`{}` for a deletion). Every process, on every platform, computes the same identifier
/// for the same edit of the same parent, so two replicas that make the same change agree on it.
public enum Revision {
    /// The revision that follows `parent` with `canonicalBody` (and the deleted flag).
    public static func next(after parent: String?, canonicalBody: String, deleted: Bool) -> String {
        var body = canonicalBody
        return body.withUTF8 { next(after: parent, canonicalBody: $0, deleted: deleted) }
    }

    /// ``next(after:canonicalBody:deleted:)`` for a body given as its UTF-8 bytes.
    static func next(after parent: String?, canonicalBody body: UnsafeBufferPointer<UInt8>, deleted: Bool) -> String {
        let generation = (parent.flatMap(generation(of:)) ?? 0) + 1
        var parent = parent ?? ""
        let digest = parent.withUTF8 { parent in
            let length = parent.count + 3 + body.count
            guard length <= oneShotLimit else {
                var hasher = SHA256()
                hasher.update(bufferPointer: UnsafeRawBufferPointer(parent))
                withUnsafeBytes(of: (UInt8(0), deleted ? UInt8(0x31) : UInt8(0x30), UInt8(0))) { hasher.update(bufferPointer: $0) }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(body))
                return hasher.finalize()
            }
            // A small input is gathered into one buffer and hashed in one call: the hasher's
            // per-call cost is a good part of a small document's revision.
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { input in
                _ = input.initialize(fromContentsOf: parent)
                input[parent.count] = 0
                input[parent.count + 1] = deleted ? 0x31 : 0x30
                input[parent.count + 2] = 0
                _ = input[(parent.count + 3)...].initialize(fromContentsOf: body)
                var hasher = SHA256()
                hasher.update(bufferPointer: UnsafeRawBufferPointer(input))
                return hasher.finalize()
            }
        }
        // Written straight into the string's storage: one allocation.
        return String(unsafeUninitializedCapacity: 20 + 1 + 2 * SHA256.Digest.byteCount) { text in
            var count = 1
            var rest = generation
            while rest >= 10 {
                rest /= 10
                count += 1
            }
            rest = generation
            for position in stride(from: count - 1, through: 0, by: -1) {
                text[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            text[count] = UInt8(ascii: "-")
            count += 1
            digest.withUnsafeBytes { bytes in
                for byte in bytes {
                    text[count] = hexDigits[Int(byte >> 4)]
                    text[count + 1] = hexDigits[Int(byte & 0xF)]
                    count += 2
                }
            }
            return count
        }
    }

    /// The generation of a revision identifier, or `nil` when it does not have the `<n>-<digest>` form.
    public static func generation(of revision: String) -> Int? {
        guard let dash = revision.utf8.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        guard let value = Int(revision[..<dash]), value > 0 else { return nil }
        return value
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The largest input (parent, flag and body) hashed from one temporary buffer; larger ones are
    /// hashed in three parts, without a copy.
    private static let oneShotLimit = 1024
}
