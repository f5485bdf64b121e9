import Foundation
import FuzzSupport
import PlistChecks
import PlistCodec

/// The binary property-list reader: the tree reader in both modes, the validator, and the streaming
/// binary-to-XML conversion, which promises the bytes of `PlistValue(parsing:).serialized(as: .xml)`.
@_cdecl("LLVMFuzzerTestOneInput")
public func binaryPlistFuzzTarget(_ bytes: UnsafeRawPointer?, _ count: Int) -> CInt {
    let data = fuzzData(bytes, count)
    let value = checkPlistReaders(data)
    guard PlistFormat.detect(data) == .binary else { return 0 }
    checkStreamingConversion("writeXML(fromBinary:)", of: value, to: .xml) { emit in
        try PlistStreaming.writeXML(fromBinary: data, options: fuzzReadOptions(), chunkSize: 64, emit: emit)
    }
    return 0
}
