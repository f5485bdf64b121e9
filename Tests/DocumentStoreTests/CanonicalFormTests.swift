import DocumentStore
import Foundation
import Testing
import TestSupport

/// The bytes a store writes and digests never change with how they are computed: revisions and
/// canonical JSON text against plain reference implementations (the spelled-out definitions), over
/// random inputs, small and large.
@Suite struct CanonicalFormTests {
    /// The definition of a revision: SHA-256 over the parent's identifier, 0, `1`/`0`, 0 and the body,
    /// fed in parts, as lowercase hexadecimal after the generation and a dash.
    static func referenceRevision(after parent: String?, body: String, deleted: Bool) -> String {
        let input = Array((parent ?? "").utf8) + [0, deleted ? 0x31 : 0x30, 0] + Array(body.utf8)
        let generation = (parent.flatMap { Int($0.prefix { $0 != "-" }) } ?? 0) + 1
        return "\(generation)-" + sha256(input).map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 (FIPS 180-4) written out plainly: a reference independent of the store's swift-crypto.
    static func sha256(_ message: [UInt8]) -> [UInt8] {
        let k: [UInt32] = [
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
        ]
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bits = UInt64(message.count) * 8
        padded += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64($0))) }
        func rotate(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
        for chunk in stride(from: 0, to: padded.count, by: 64) {
            var w = (0..<16).map { i in (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(padded[chunk + 4 * i + $1]) } }
            for i in 16..<64 {
                let s0 = rotate(w[i - 15], 7) ^ rotate(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotate(w[i - 2], 17) ^ rotate(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w.append(w[i - 16] &+ s0 &+ w[i - 7] &+ s1)
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }

    /// The definition of canonical text: keys sorted by their UTF-8 bytes, found again by key.
    static func referenceText(_ value: JSON) -> String {
        switch value {
        case .null: return "null"
        case .bool(let v): return v ? "true" : "false"
        case .integer(let v): return String(v)
        case .double(let v): return v.description
        case .string(let s): return referenceString(s)
        case .array(let items): return "[" + items.map(referenceText).joined(separator: ",") + "]"
        case .object(let fields):
            let keys = fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return "{" + keys.map { referenceString($0) + ":" + referenceText(fields[$0]!) }.joined(separator: ",") + "}"
        }
    }

    static func referenceString(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{8}": out += "\\b"
            case "\u{C}": out += "\\f"
            case let control where control.value < 0x20: out += String(format: "\\u%04x", control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A random string: ASCII, escapes, and characters of two, three and four UTF-8 bytes.
    static func randomString(_ generator: inout some RandomNumberGenerator, length: Int) -> String {
        let pieces = ["a", "b", "Z", "0", " ", "\"", "\\", "\n", "\u{1}", "é", "e\u{301}", "ß", "€", "😀", "\u{7F}", "/"]
        return (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    static func randomJSON(_ generator: inout some RandomNumberGenerator, depth: Int) -> JSON {
        switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &generator))
        case 3: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 4, 5: return .string(randomString(&generator, length: Int.random(in: 0..<12, using: &generator)))
        case 6: return .array((0..<Int.random(in: 0..<5, using: &generator)).map { _ in randomJSON(&generator, depth: depth + 1) })
        default:
            var fields: [String: JSON] = [:]
            for _ in 0..<Int.random(in: 0..<7, using: &generator) {
                // Keys that share prefixes and differ in length, so the byte order is exercised.
                let key = ["", "a", "ab", "b", "é", "😀"].randomElement(using: &generator)! + randomString(&generator, length: Int.random(in: 0..<3, using: &generator))
                fields[key] = randomJSON(&generator, depth: depth + 1)
            }
            return .object(fields)
        }
    }

    @Test func theReferenceDigestIsSHA256() {
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(Self.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(Self.sha256([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(Self.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(hex(Self.sha256(Array(repeating: UInt8(ascii: "a"), count: 1000)))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        #expect(Self.referenceRevision(after: nil, body: #"{"value":1}"#, deleted: false)
                == "1-dcd590e23f8605207f96d04d5c12e576184d2416d24cccc26417948d78808613", "the store's own golden revision")
    }

    @Test func revisionsAreTheDigestOfTheirDefinitionForSmallAndLargeBodies() {
        var generator = SystemRandomNumberGenerator()
        var parent: String? = nil
        for round in 0..<600 {
            // Around the one-buffer limit (1024 bytes of parent, flag and body), and well past it.
            let length = round % 3 == 0 ? Int.random(in: 0..<3000, using: &generator) : Int.random(in: 900..<1100, using: &generator)
            let body = String(repeating: "x", count: length) + Self.randomString(&generator, length: round % 5)
            let deleted = round % 7 == 0
            let revision = Revision.next(after: parent, canonicalBody: body, deleted: deleted)
            #expect(revision == Self.referenceRevision(after: parent, body: body, deleted: deleted), "body of \(body.utf8.count) bytes")
            parent = round % 11 == 0 ? nil : revision
        }
        #expect(Revision.next(after: nil, canonicalBody: "", deleted: false) == Self.referenceRevision(after: nil, body: "", deleted: false))
        #expect(Revision.next(after: "", canonicalBody: "{}", deleted: true) == Self.referenceRevision(after: "", body: "{}", deleted: true))
    }

    /// A document saved with `save(_:json:)` from its own `save(to:)`.
    final class Fielded: Persistable {
        static let kind = "Fielded"
        let identifier: String
        let fields: [String: any JSONRepresentable]

        init(_ identifier: String, _ fields: [String: any JSONRepresentable]) {
            self.identifier = identifier
            self.fields = fields
        }

        init?(with json: JSON, from persistence: Persistence) throws { nil }

        func save(to: Persistence) throws { try to.save(self, json: fields) }
    }

    @Test func fieldsSavedInATransactionAreWrittenAsTheSameDocumentWouldBe() throws {
        let store = try TestStore("canonical-fields")
        var generator = SystemRandomNumberGenerator()
        for round in 0..<300 {
            var fields: [String: any JSONRepresentable] = [:]
            var document: [String: JSON] = [:]
            for _ in 0..<Int.random(in: 0..<9, using: &generator) {
                let key = ["", "a", "ab", "b", "é", "😀"].randomElement(using: &generator)! + Self.randomString(&generator, length: 2)
                let value = Self.randomJSON(&generator, depth: 1)
                fields[key] = value
                document[key] = value
            }
            // Through `save(_:)`: `save(to:)` runs in the save's transaction (the path without a dictionary).
            let viaFields = Fielded("fields-\(round)", fields)
            try store.persistence.save(viaFields)
            // The same body as a document, outside a transaction.
            let viaDocument = Fielded("document-\(round)", fields)
            try store.persistence.save(viaDocument, document: .object(document))
            // A first revision is the digest of the body's canonical text: equal revisions, equal bytes.
            #expect(store.persistence.revision(of: viaFields) == store.persistence.revision(of: viaDocument))
            #expect(try store.persistence.snapshot(viaFields.identifier)?.body == .object(document))
        }
    }

    @Test func aNonFiniteNumberAmongFieldsIsReportedAtTheSamePath() throws {
        let store = try TestStore("canonical-nonfinite")
        for round in 0..<50 {
            let fields: [String: any JSONRepresentable] = [
                "fine": 1.5, "nan-\(round)": Double.nan, "nested-\(round)": ["list": JSON.array([.double(1), .double(.infinity)])] as JSON, "name": "x",
            ]
            var viaFields: String?
            var viaDocument: String?
            do { try store.persistence.save(Fielded("f\(round)", fields)) } catch DocumentStoreError.invalidValue(_, let path, _) { viaFields = path }
            do {
                try store.persistence.save(Fielded("d\(round)", fields), document: .object(fields.mapValues { $0.jsonValue }))
            } catch DocumentStoreError.invalidValue(_, let path, _) {
                viaDocument = path
            }
            #expect(viaFields != nil && viaFields == viaDocument)
        }
        #expect(try store.count("documents") == 0)
    }

    @Test func canonicalTextIsItsDefinition() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value = Self.randomJSON(&generator, depth: 0)
            #expect(value.canonicalText == Self.referenceText(value))
        }
        let many = JSON.object(Dictionary(uniqueKeysWithValues: (0..<300).map { ("k\(($0 * 7919) % 300)", JSON.integer(Int64($0))) }))
        #expect(many.canonicalText == Self.referenceText(many), "an object too large for a buffer on the stack")
    }
}
