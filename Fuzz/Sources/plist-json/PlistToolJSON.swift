import Foundation
import FuzzSupport
import PlistCodec

/// The `plist` tool's JSON reader (`-insert … -json`), compiled from `Apps/plist/PlistTool/JSONPlistReader.swift`.
///
/// Checks that it throws its own `Failure` only, and that what it reads is a property list: it writes
/// as binary and reads back with the same contents.
@_cdecl("LLVMFuzzerTestOneInput")
public func plistToolJSONFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    let value: PlistValue
    do {
        value = try JSONPlistReader.read(fuzzText(bytes, count))
    } catch is JSONPlistReader.Failure {
        return 0
    } catch {
        fuzzRequire(false, "JSONPlistReader threw a non-Failure: \(error)")
        return 0
    }
    do {
        let back = try PlistValue(parsing: value.serialized(as: .binary), options: PlistReadOptions(strict: true))
        fuzzRequire(back.hasSameContents(as: value), "a JSON value changed in a binary round trip")
    } catch {
        fuzzRequire(false, "a JSON value does not round-trip through binary: \(error)")
    }
    return 0
}
