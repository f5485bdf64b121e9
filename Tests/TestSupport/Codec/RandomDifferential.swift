import Foundation
import PlistCodec

/// Runs one value through `PlistEncoder`/`PlistDecoder` and Foundation's encoder/decoder and compares.
///
/// ```swift
/// let check = DifferentialCheck(format: .binary)
/// for failure in check.failures(for: value) { Issue.record("seed \(seed): \(failure)") }
/// ```
///
/// The checks, in order: Foundation's decoder reads Foundation's bytes (the reference); in binary, the
/// reference equals the input (otherwise the generator made a value Foundation loses: a generator bug);
/// our decoder on Foundation's bytes gives exactly the reference (see `ExactDiff`); our encoder's bytes
/// equal Foundation's. Equal bytes mean every decoder reads ours as it reads Foundation's; when they
/// differ, the failure says which field each decoder reads differently from our bytes.
public struct DifferentialCheck: Sendable {
    /// The format both encoders write.
    public let format: PlistFormat
    /// Where the bytes of a failing value are saved (nil: not saved).
    public var dumpDirectory: URL? = FileManager.default.temporaryDirectory

    /// Creates a check for `.binary` or `.xml`.
    public init(format: PlistFormat) { self.format = format }

    /// Foundation's encoder for this format.
    public var foundationEncoder: PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format == .xml ? .xml : .binary
        return encoder
    }

    /// Our encoder for this format.
    public var ourEncoder: PlistEncoder {
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        return encoder
    }

    /// Foundation's and our bytes for `value`, or the error that stopped either encoder.
    public func encodeBoth<T: Encodable>(_ value: T) -> Result<(ours: Data, theirs: Data), DifferentialFailure> {
        let theirs: Data, ours: Data
        do { theirs = try foundationEncoder.encode(value) } catch {
            return .failure(DifferentialFailure(.generator, "Foundation's encoder threw: \(error)"))
        }
        do { ours = try ourEncoder.encode(value) } catch {
            return .failure(DifferentialFailure(.encoder, "our encoder threw: \(error)"))
        }
        return .success((ours, theirs))
    }

    /// Every check `value` fails (empty if it passes all); `label` names the dump files.
    ///
    /// Kinds in `skipping` are not checked (a test that already reported our encoder failing can go on
    /// testing our decoder). Decoding is checked before encoding, so a decoder bug is found even while
    /// the encoder fails.
    public func failures<T: Codable>(for value: T, label: String = "value",
                                     skipping: Set<DifferentialFailure.Kind> = []) -> [DifferentialFailure] {
        let theirs: Data, reference: T
        do { theirs = try foundationEncoder.encode(value) } catch {
            return [DifferentialFailure(.generator, "Foundation's encoder threw: \(error)")]
        }
        do { reference = try PropertyListDecoder().decode(T.self, from: theirs) } catch {
            return [DifferentialFailure(.generator, "Foundation cannot decode its own \(format) bytes: \(error)")]
        }
        if format == .binary, let d = ExactDiff.firstDifference(reference, value) {
            return [DifferentialFailure(.generator, "generator made a value Foundation's binary round trip loses: \(d)")]
        }
        var found: [DifferentialFailure] = []
        if !skipping.contains(.decoder) {
            do {
                let decoded = try PlistDecoder().decode(T.self, from: theirs)
                if let d = ExactDiff.firstDifference(decoded, reference) {
                    found.append(DifferentialFailure(.decoder, "PlistDecoder on Foundation's \(format) bytes: \(d)"
                        + dump(theirs, as: "foundation", label: label)))
                }
            } catch {
                found.append(DifferentialFailure(.decoder, "PlistDecoder cannot decode Foundation's \(format) bytes: \(error)"
                    + dump(theirs, as: "foundation", label: label)))
            }
        }
        if skipping.contains(.encoder) { return found }
        let ours: Data
        do { ours = try ourEncoder.encode(value) } catch {
            found.append(DifferentialFailure(.encoder, "our \(format) encoder threw: \(error)"))
            return found
        }
        guard let mismatch = ExactDiff.describeMismatch(ours: ours, theirs: theirs) else {
            // The bytes are equal, so every decoder reads ours exactly as it reads Foundation's.
            return found
        }
        var text = "\(format) bytes differ from Foundation's: \(mismatch)"
        // Which field: decode our bytes with both decoders and compare with the reference.
        do {
            let decoded = try PropertyListDecoder().decode(T.self, from: ours)
            text += "\n  PropertyListDecoder on our bytes: " + (ExactDiff.firstDifference(decoded, reference)
                ?? "same values (the layout differs: order, sharing or widths)")
        } catch { text += "\n  PropertyListDecoder cannot decode our bytes: \(error)" }
        do {
            let decoded = try PlistDecoder().decode(T.self, from: ours)
            text += "\n  PlistDecoder on our bytes: " + (ExactDiff.firstDifference(decoded, reference) ?? "same values")
        } catch { text += "\n  PlistDecoder cannot decode our bytes: \(error)" }
        text += dump(ours, as: "ours", label: label) + dump(theirs, as: "foundation", label: label)
        found.append(DifferentialFailure(.encoder, text))
        return found
    }

    private func dump(_ bytes: Data, as who: String, label: String) -> String {
        guard let directory = dumpDirectory else { return "" }
        let url = directory.appendingPathComponent("\(label).\(who).\(format == .xml ? "xml.plist" : "bplist")")
        do { try bytes.write(to: url) } catch { return "\n  (could not save \(who) bytes: \(error))" }
        return "\n  saved \(who) bytes: \(url.path)"
    }
}

/// What a differential check found.
public struct DifferentialFailure: Error, CustomStringConvertible, Sendable {
    /// Which side failed.
    public enum Kind: String, Hashable, Sendable {
        /// `PlistEncoder` threw or wrote different bytes.
        case encoder
        /// `PlistDecoder` threw on, or misread, Foundation's bytes.
        case decoder
        /// The generated value is one Foundation cannot encode or round-trip: a test-generator bug.
        case generator
    }
    /// Which side failed.
    public var kind: Kind
    /// A description with the field path and byte excerpts.
    public var description: String
    /// Creates a failure of `kind` with `description`.
    public init(_ kind: Kind, _ description: String) { self.kind = kind; self.description = description }
}

/// Reads the 32-byte trailer of a binary property list.
public struct BinaryTrailer: Equatable, Sendable {
    /// Bytes per offset-table entry.
    public var offsetIntSize: Int
    /// Bytes per object reference.
    public var objectRefSize: Int
    /// Number of objects.
    public var objectCount: UInt64
    /// Where the offset table starts.
    public var offsetTableOffset: UInt64

    /// The trailer of `data`, or nil if `data` is not a `bplist00` file long enough to have one.
    public init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        let t = Array(bytes.suffix(32))
        func u64(_ at: Int) -> UInt64 { t[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        offsetIntSize = Int(t[6])
        objectRefSize = Int(t[7])
        objectCount = u64(8)
        offsetTableOffset = u64(24)
    }
}

/// What one decoder made of some bytes: a value, described exactly, or the kind of error it threw.
public enum DecodeOutcome: Equatable, CustomStringConvertible, Sendable {
    /// Decoded; the text is `ExactDiff`-style (bit patterns for floating point, scalars for strings).
    case value(String)
    /// Threw a `DecodingError` of this case (`typeMismatch`, `valueNotFound`, `keyNotFound`, `dataCorrupted`).
    case decodingError(String)
    /// Threw an error that is not a `DecodingError`.
    case otherError(String)

    /// Runs `decode` (which decodes a `target`) and records what happened.
    public static func of<T: Decodable>(_ target: T.Type, _ decode: () throws -> T) -> DecodeOutcome {
        do { return .value(exactDescription(try decode())) } catch let error as DecodingError {
            switch error {
            case .typeMismatch: return .decodingError("typeMismatch")
            case .valueNotFound: return .decodingError("valueNotFound")
            case .keyNotFound: return .decodingError("keyNotFound")
            case .dataCorrupted: return .decodingError("dataCorrupted")
            @unknown default: return .decodingError("unknown")
            }
        } catch { return .otherError("\(Swift.type(of: error)): \(error)") }
    }

    /// A description of `value` that tells apart everything `ExactDiff` tells apart.
    public static func exactDescription(_ value: Any) -> String {
        switch value {
        case let x as Double: return x.isNaN ? "Double(nan)" : "Double(0x\(String(x.bitPattern, radix: 16)))"
        case let x as Float: return x.isNaN ? "Float(nan)" : "Float(0x\(String(x.bitPattern, radix: 16)))"
        case let x as String: return "String(\(ExactDiff.scalars(x)))"
        case let x as Date: return "Date(0x\(String(x.timeIntervalSinceReferenceDate.bitPattern, radix: 16)))"
        case let x as [Any]: return "[" + x.map(exactDescription).joined(separator: ", ") + "]"
        default:
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                return mirror.children.first.map { "some(\(exactDescription($0.value)))" } ?? "nil"
            }
            return "\(type(of: value))(\(value))"
        }
    }

    /// The outcome, as text.
    public var description: String {
        switch self {
        case .value(let text): return text
        case .decodingError(let kind): return "DecodingError.\(kind)"
        case .otherError(let type): return "error \(type)"
        }
    }
}
