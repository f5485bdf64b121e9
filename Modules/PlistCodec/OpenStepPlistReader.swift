import Foundation

/// Reads old-style OpenStep property lists into `PlistValue`. (Stub: being written.)
struct OpenStepPlistReader {
    let data: Data
    let options: PlistReadOptions

    init(data: Data, options: PlistReadOptions) {
        self.data = data
        self.options = options
    }

    func read() throws -> PlistValue {
        throw PlistError(.unknownFormat, "OpenStep reader not written yet")
    }
}
