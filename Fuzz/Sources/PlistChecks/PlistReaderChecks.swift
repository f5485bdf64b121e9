import Foundation
import FuzzSupport
import PlistCodec

// What the three reader targets (binary, XML, OpenStep) check on every input. Each target adds the
// streaming path of its own format; this file holds the promises every format makes.

/// Reads `data` as `PlistValue(parsing:)` does, in default and strict mode, under `fuzzValueLimit`,
/// and checks that:
/// - only `PlistError` is thrown (its documentation promises nothing else);
/// - `PlistStreaming.validate` throws exactly the error the tree reader throws, or nothing when it reads;
/// - what strict mode reads, default mode reads the same way (strict only refuses more);
/// - a value that reads holds no more values than the limit, and one below its count refuses it;
/// - a value that reads survives binary serialization: written and read back, it has the same contents.
///
/// - Returns: The value in default mode, or `nil` when the input is refused.
@discardableResult
public func checkPlistReaders(_ data: Data) -> PlistValue? {
    let lenient = readPlist(data, strict: false)
    let strict = readPlist(data, strict: true)

    let validation: PlistError?
    do {
        try PlistStreaming.validate(data, options: fuzzReadOptions())
        validation = nil
    } catch let error as PlistError {
        validation = error
    } catch {
        fuzzRequire(false, "PlistStreaming.validate threw a non-PlistError: \(error)")
        return nil
    }
    switch lenient {
    case .success: fuzzRequire(validation == nil, "validate refused what the reader reads: \(validation!)")
    case .failure(let error): fuzzRequire(validation == error, "validate threw \(String(describing: validation)), the reader \(error)")
    }

    if case .success = strict, case .failure = lenient {
        fuzzRequire(false, "strict mode read what default mode refuses")
    }
    guard case .success(let value) = lenient else { return nil }
    checkValueCount(value, of: data)
    if case .success(let strictValue) = strict {
        fuzzRequire(strictValue.hasSameContents(as: value), "strict and default mode read different values")
    }
    checkBinaryRoundTrip(value)
    return value
}

/// `PlistValue(parsing:options:)` as a `Result`, stopping the run if it throws anything but `PlistError`.
public func readPlist(_ data: Data, strict: Bool) -> Result<PlistValue, PlistError> {
    do {
        return .success(try PlistValue(parsing: data, options: fuzzReadOptions(strict: strict)))
    } catch let error as PlistError {
        return .failure(error)
    } catch {
        fuzzRequire(false, "PlistValue(parsing:) threw a non-PlistError: \(error)")
        return .failure(PlistError(.malformed, "unreachable"))
    }
}

/// Binary is the format that can hold every value a reader produces, so this must round-trip; a value
/// the writer refuses must be refused with a `PlistError`.
public func checkBinaryRoundTrip(_ value: PlistValue) {
    let bytes: Data
    do {
        bytes = try value.serialized(as: .binary)
    } catch is PlistError {
        return
    } catch {
        fuzzRequire(false, "serialized(as: .binary) threw a non-PlistError: \(error)")
        return
    }
    switch readPlist(bytes, strict: true) {
    case .success(let back): fuzzRequire(back.hasSameContents(as: value), "binary round trip changed the value")
    case .failure(let error): fuzzRequire(false, "the binary writer's output does not read back: \(error)")
    }
}
