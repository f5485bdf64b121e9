import Foundation
import FuzzSupport
import PlistChecks
import PlistCodec

/// The OpenStep (old-style ASCII) reader. It has no streaming path of its own (`validate` parses), so
/// the shared checks are the whole oracle: typed errors, strict within default, a binary round trip.
@_cdecl("LLVMFuzzerTestOneInput")
public func openStepPlistFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    checkPlistReaders(fuzzData(bytes, count))
    return 0
}
