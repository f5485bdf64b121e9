import BenchSupport
import Foundation
import PlistCodec

/// Compares two encodings of the dataset and describes the result in one line.
func compareBytes(format: String, foundation: Data, ours: Result<Data, any Error>) -> (line: String, identical: Bool) {
    switch ours {
    case .failure(let error):
        return ("\(format): ours failed: \(describe(error))", false)
    case .success(let data) where data == foundation:
        return ("\(format): identical (\(data.count) bytes)", true)
    case .success(let data):
        let firstDifference = zip(data, foundation).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(data.count, foundation.count)
        return ("\(format): DIFFERENT: ours \(data.count) bytes, Foundation \(foundation.count) bytes, "
            + "first difference at byte \(firstDifference)", false)
    }
}

/// Checks that our decoder reads `data` into the same records Foundation's decoder does.
func compareDecoded(format: String, data: Data) -> (line: String, equal: Bool) {
    do {
        let expected = try PropertyListDecoder().decode([Record].self, from: data)
        do {
            let ours = try PlistDecoder().decode([Record].self, from: data)
            if ours == expected { return ("\(format): same records as Foundation (\(ours.count))", true) }
            let index = zip(ours, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            return ("\(format): DIFFERENT records: ours \(ours.count), Foundation \(expected.count)"
                + (index.map { ", first difference at record \($0)" } ?? ""), false)
        } catch {
            return ("\(format): ours failed: \(describe(error))", false)
        }
    } catch {
        return ("\(format): Foundation failed: \(describe(error))", false)
    }
}

/// A one-line description of `error`. `EncodingError.invalidValue` would otherwise print the whole
/// dataset it failed on.
func describe(_ error: any Error) -> String {
    switch error {
    case EncodingError.invalidValue(_, let context):
        return "EncodingError.invalidValue at \(context.codingPath.map(\.stringValue)): \(context.debugDescription)"
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
         DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
        return "DecodingError at \(context.codingPath.map(\.stringValue)): \(context.debugDescription)"
    default:
        return "\(error)"
    }
}
