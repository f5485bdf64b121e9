import Foundation
import FuzzSupport
import PlistCodec

/// How many values `value` holds once shared containers are counted at every place they appear
/// (what `PlistReadOptions.maxValueCount` bounds), counting no further than `limit + 1`.
public func plistExpandedCount(_ value: PlistValue, limit: Int) -> Int {
    var count = 0
    func visit(_ value: PlistValue) -> Bool {
        count += 1
        guard count <= limit else { return false }
        switch value {
        case .array(let items): return items.allSatisfy(visit)
        case .dictionary(let entries): return entries.values.allSatisfy(visit)
        default: return true
        }
    }
    _ = visit(value)
    return count
}

/// The `maxValueCount` every plist target reads under: far above any seed (the largest fixture holds
/// a few thousand values), low enough that comparing, writing or decoding what was read stays fast.
/// A binary file of shared containers can describe 2^60 values in 300 bytes
/// (`Fixtures/PlistCodec/invalid/bin_shared_fanout_found.plist`, this fuzzer's finding); the reader
/// refuses it with `.tooLarge` while checking, which `checkValueCount` holds it to.
public let fuzzValueLimit = 100_000

/// The options the targets read with: `PlistReadOptions`' defaults but `fuzzValueLimit`.
public func fuzzReadOptions(strict: Bool = false) -> PlistReadOptions {
    PlistReadOptions(maxValueCount: fuzzValueLimit, strict: strict)
}

/// The reader counted `value` right: it has at most `fuzzValueLimit` values, and reading `data`
/// again with a limit one below its count is refused with `.tooLarge` (the limit is exact).
public func checkValueCount(_ value: PlistValue, of data: Data) {
    let count = plistExpandedCount(value, limit: fuzzValueLimit)
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
