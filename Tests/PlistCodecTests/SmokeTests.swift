import Testing
import Foundation
@testable import PlistCodec

@Test func dictionaryKeepsOrder() {
    var d = PlistDictionary()
    d["b"] = .int(1); d["a"] = .int(2)
    #expect(d.keys == ["b", "a"])
}
