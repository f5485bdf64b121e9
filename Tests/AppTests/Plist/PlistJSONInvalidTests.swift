import Foundation
@testable import PlistTool
import Testing
import TestSupport

/// Every file in `Fixtures/Apps/plist/invalid/` is refused by the `plist` tool's JSON reader with its
/// own `Failure`: the inputs fuzzing found (see that folder's README), kept so they stay refused.
@Suite("plist JSON reader refuses malformed input")
struct PlistJSONInvalidTests {
    static let files = Fixtures.list("Apps/plist/invalid", suffix: ".json")

    @Test func corpusIsPresent() {
        #expect(Self.files.count >= 3)
    }

    @Test(arguments: files)
    func readingThrowsFailure(_ path: String) throws {
        let text = String(decoding: try Fixtures.data(path), as: UTF8.self)
        #expect(throws: JSONPlistReader.Failure.self) { try JSONPlistReader.read(text) }
    }
}
