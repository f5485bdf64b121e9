import BenchSupport
import Foundation
import PlistCodec

extension Dataset {
    /// A binary property list of records about `bytes` long: the size of a sample fixes the count.
    static func binaryFile(approximately bytes: Int) throws -> (data: Data, records: Int) {
        var encoder = PlistEncoder()
        encoder.outputFormat = .binary
        let sample = try encoder.encode(make(count: 10_000))
        let count = max(1, Int(Double(bytes) / Double(sample.count) * 10_000))
        return (try encoder.encode(make(count: count)), count)
    }
}
