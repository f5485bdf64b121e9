import Foundation
import FuzzSupport
import PlistChecks
import PlistCodec

/// The XML property-list reader: the tree reader in both modes, the validating scanner, and the
/// streaming XML-to-binary conversion, which promises the bytes of `serialized(as: .binary)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func xmlPlistFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = fuzzData(bytes, count)
    let value = checkPlistReaders(data)
    guard PlistFormat.detect(data) == .xml else { return 0 }

    // 4096 is the smallest chunk the converter honours; any size must give the same bytes.
    checkStreamingConversion("writeBinary(fromXML:)", of: value, to: .binary) { emit in
        try PlistStreaming.writeBinary(fromXML: data, options: fuzzReadOptions(), chunkSize: 4096, emit: emit)
    }
    return 0
}
