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

    var streamed = Data()
    let streaming: Result<Data, PlistError>
    do {
        // 4096 is the smallest chunk the converter honours; any size must give the same bytes.
        try PlistStreaming.writeBinary(fromXML: data, options: fuzzReadOptions(), chunkSize: 4096) { streamed.append($0) }
        streaming = .success(streamed)
    } catch let error as PlistError {
        streaming = .failure(error)
    } catch {
        fuzzRequire(false, "writeBinary(fromXML:) threw a non-PlistError: \(error)")
        return 0
    }
    guard let value else {
        if case .success = streaming { fuzzRequire(false, "writeBinary(fromXML:) converted a file the reader refuses") }
        return 0
    }
    switch (Result { try value.serialized(as: .binary) }, streaming) {
    case (.success(let tree), .success(let stream)):
        fuzzRequire(tree == stream, "writeBinary(fromXML:) and serialized(as: .binary) wrote different bytes")
    case (.failure, .failure): break
    case (let tree, let stream):
        fuzzRequire(false, "serialized(as: .binary) gave \(tree) but writeBinary(fromXML:) \(stream)")
    }
    return 0
}
