import Foundation
import FuzzSupport
import PlistChecks
import PlistCodec

/// `PlistDecoder` over `FuzzModel`, from bytes in any format.
///
/// Checks that it throws `DecodingError` only (as `PropertyListDecoder` does), that decoding binary
/// bytes and decoding their parsed `PlistValue` agree, and that a decoded model encodes and decodes back to
/// the same bytes (idempotence, not equality with the input: XML dates drop fractions of a second).
@_cdecl("LLVMFuzzerTestOneInput")
public func plistDecoderFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = fuzzData(bytes, count)
    var decoder = PlistDecoder()
    // Decoding a model expands every shared container of a binary file, as writing does: the limit
    // keeps a small file from describing an enormous model (see PlistChecks/ValueLimit.swift).
    decoder.options = fuzzReadOptions()
    let value = try? PlistValue(parsing: data, options: fuzzReadOptions())
    let fromBytes = decodeModel { try decoder.decode(FuzzModel.self, from: data) }

    // The value path is a second decoder implementation (the bytes path reads binary in place).
    // Binary input only: decoding XML bytes rounds a <real> to Float as Foundation does, while a
    // PlistValue no longer knows its real was text and converts exactly (`realsAreText`), so
    // `<real>2.2</real>` into a Float decodes from the bytes and not from the value, by design.
    if let value, PlistFormat.detect(data) == .binary {
        let fromValue = decodeModel { try decoder.decode(FuzzModel.self, from: value) }
        fuzzRequire((fromBytes == nil) == (fromValue == nil),
                    "decoding the bytes \(fromBytes == nil ? "failed" : "worked"), decoding their value did not")
    }

    guard let model = fromBytes else { return 0 }
    for format in [PlistFormat.binary, .xml] {
        var encoder = PlistEncoder()
        encoder.outputFormat = format
        let first: Data
        do {
            first = try encoder.encode(model)
        } catch {
            // XML cannot hold everything binary can (a NUL in a string, a date too far from 2001 to spell): the
            // documented refusal is a PlistError of kind .unsupportedValue. Binary holds everything.
            let refusal = (error as? PlistError)?.kind == .unsupportedValue || error is EncodingError
            fuzzRequire(format == .xml && refusal, "a decoded model does not encode as \(format): \(error)")
            continue
        }
        guard let again = decodeModel({ try decoder.decode(FuzzModel.self, from: first) }) else {
            fuzzRequire(false, "an encoded model does not decode from \(format)")
            return 0
        }
        fuzzRequire((try? encoder.encode(again)) == first, "encode, decode, encode changed the \(format) bytes")
    }
    return 0
}

/// Runs a decode, returning `nil` for a `DecodingError` and stopping the run for any other error.
func decodeModel(_ body: () throws -> FuzzModel) -> FuzzModel? {
    do {
        return try body()
    } catch is DecodingError {
        return nil
    } catch {
        fuzzRequire(false, "PlistDecoder threw a non-DecodingError: \(error)")
        return nil
    }
}
