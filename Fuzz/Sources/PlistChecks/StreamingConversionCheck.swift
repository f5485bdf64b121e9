import Foundation
import FuzzSupport
import PlistCodec

/// Checks a streaming conversion against the tree: `convert` (named `name` in messages) must throw
/// only `PlistError`, refuse exactly when the tree reader refused (`value == nil`), and otherwise emit
/// the bytes of `value.serialized(as: format)`, or fail when that fails.
public func checkStreamingConversion(
    _ name: String, of value: PlistValue?, to format: PlistFormat, _ convert: (_ emit: (Data) -> Void) throws -> Void
) {
    var streamed = Data()
    let streaming: Result<Data, PlistError>
    do {
        try convert { streamed.append($0) }
        streaming = .success(streamed)
    } catch let error as PlistError {
        streaming = .failure(error)
    } catch {
        fuzzRequire(false, "\(name) threw a non-PlistError: \(error)")
        return
    }
    guard let value else {
        if case .success = streaming { fuzzRequire(false, "\(name) converted a file the reader refuses") }
        return
    }
    switch (Result { try value.serialized(as: format) }, streaming) {
    case (.success(let tree), .success(let stream)):
        fuzzRequire(tree == stream, "\(name) and serialized(as: .\(format)) wrote different bytes")
    case (.failure, .failure): break
    case (let tree, let stream):
        fuzzRequire(false, "serialized(as: .\(format)) gave \(tree) but \(name) \(stream)")
    }
}
