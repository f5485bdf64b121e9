import Foundation
import FuzzSupport
import PlistCodec

/// The `maxValueCount` every plist target reads under: above any input without shared objects (each
/// value takes at least one byte, and `ci/fuzz` keeps inputs under 16,384 bytes), low enough that
/// comparing, writing or decoding what was read stays fast (at 100,000, an input near the limit took
/// a second under ASan, and more than the 10 s timeout on a loaded machine).
/// A binary file of shared containers can describe 2^60 values in 300 bytes
/// (`Fixtures/PlistCodec/invalid/bin_shared_fanout_found.plist`, this fuzzer's finding); the reader
/// refuses it with `.tooLarge` while checking, which `checkValueCount` holds it to.
public let fuzzValueLimit = 20_000

/// The options the targets read with: `PlistReadOptions`' defaults but `fuzzValueLimit`.
public func fuzzReadOptions(strict: Bool = false) -> PlistReadOptions {
    PlistReadOptions(maxValueCount: fuzzValueLimit, strict: strict)
}

/// The reader counted `value` right: it has at most `fuzzValueLimit` values, and reading `data`
/// again with a limit one below its count is refused with `.tooLarge` (the limit is exact).
public func checkValueCount(_ value: PlistValue, of data: Data) {
    let count = value.valueCount(limit: fuzzValueLimit)
    fuzzRequire(count <= fuzzValueLimit, "the reader let through more than maxValueCount values")
    var below = fuzzReadOptions()
    below.maxValueCount = count - 1
    do {
        _ = try PlistValue(parsing: data, options: below)
        fuzzRequire(false, "a value of \(count) values read under maxValueCount \(count - 1)")
    } catch let error as PlistError {
        fuzzRequire(error.kind == .tooLarge, "one below its count, the reader threw \(error), not .tooLarge")
    } catch {
        fuzzRequire(false, "PlistValue(parsing:) threw a non-PlistError: \(error)")
    }
}
