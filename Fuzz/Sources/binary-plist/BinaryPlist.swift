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
    var streamed = Data()
    let streaming: Result<Data, PlistError>
    do {
        try PlistStreaming.writeXML(fromBinary: data, options: fuzzReadOptions(), chunkSize: 64) { streamed.append($0) }
        streaming = .success(streamed)
    } catch let error as PlistError {
        streaming = .failure(error)
    } catch {
        fuzzRequire(false, "writeXML(fromBinary:) threw a non-PlistError: \(error)")
        return 0
    }
    guard let value else {
        if case .success = streaming { fuzzRequire(false, "writeXML(fromBinary:) converted a file the reader refuses") }
        return 0
    }
    switch (Result { try value.serialized(as: .xml) }, streaming) {
    case (.success(let tree), .success(let stream)):
        fuzzRequire(tree == stream, "writeXML(fromBinary:) and serialized(as: .xml) wrote different bytes")
    case (.failure, .failure): break
    case (let tree, let stream):
        fuzzRequire(false, "serialized(as: .xml) gave \(tree) but writeXML(fromBinary:) \(stream)")
    }
    return 0
}
