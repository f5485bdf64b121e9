import Foundation

/// Reads XML property lists into `PlistValue`. (Stub: being written.)
struct XMLPlistReader {
    let data: Data
    let options: PlistReadOptions

    init(data: Data, options: PlistReadOptions) {
        self.data = data
        self.options = options
    }

    func read() throws -> PlistValue {
        throw PlistError(.unknownFormat, "XML reader not written yet")
    }
}
