import Foundation

struct BinaryPlistReader {
    let data: Data
    let options: PlistReadOptions
    init(data: Data, options: PlistReadOptions) { self.data = data; self.options = options }
    func read() throws -> PlistValue { throw PlistError(.unknownFormat, "stub") }
}
