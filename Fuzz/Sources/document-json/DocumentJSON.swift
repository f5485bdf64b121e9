import Foundation
import FuzzSupport

/// DocumentStore's JSON values, compiled from `Modules/DocumentStore/{JSON,JSONParser,JSONConversions,
/// JSONValueDecoder,DocumentStoreError}.swift` (none of which needs GRDB).
///
/// Checks that the parser refuses input only with `.malformedJSON` at an offset inside the text; that
/// the canonical text of what it reads parses back to an equal value and is a fixed point (the store
/// digests that text, so two equal values must give the same bytes); and that `JSONValueDecoder` over
/// the value throws only `DecodingError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func documentJSONFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    let text = fuzzText(bytes, count)
    let value: JSON
    do {
        value = try JSON(parsing: text)
    } catch {
        guard case .malformedJSON(_, let offset, _) = error else {
            fuzzRequire(false, "JSON(parsing:) threw \(error), not .malformedJSON")
            return 0
        }
        fuzzRequire((0...text.utf8.count).contains(offset), "offset \(offset) outside \(text.utf8.count) bytes")
        return 0
    }

    let canonical = value.canonicalText
    do {
        let back = try JSON(parsing: canonical)
        fuzzRequire(back == value, "canonical text reads back as a different value: \(canonical)")
        fuzzRequire(back.canonicalText == canonical, "canonical text is not a fixed point: \(canonical)")
    } catch {
        fuzzRequire(false, "canonical text does not parse: \(error): \(canonical)")
    }

    do {
        _ = try JSONValueDecoder.decode(FuzzModel.self, from: value, codingPath: [])
    } catch is DecodingError {
    } catch {
        fuzzRequire(false, "JSONValueDecoder threw a non-DecodingError: \(error)")
    }
    return 0
}
