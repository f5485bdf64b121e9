import Testing
import Foundation
import PlistCodec

@Suite struct EquivalenceTests {
    @Test func dictionaryKeyOrderDoesNotMatter() {
        let declared: PlistValue = .dictionary(["name": .string("Ada"), "accent": .array([.dictionary(["z": .int(1), "a": .int(2)])]), "size": .int(3)])
        let sorted: PlistValue = .dictionary(["accent": .array([.dictionary(["a": .int(2), "z": .int(1)])]), "name": .string("Ada"), "size": .int(3)])
        #expect(declared != sorted)
        #expect(declared.hasSameContents(as: sorted))
    }

    @Test func differencesStillCount() {
        let a: PlistValue = .dictionary(["a": .int(1), "b": .int(2)])
        #expect(!a.hasSameContents(as: .dictionary(["a": .int(1), "b": .int(3)])))
        #expect(!a.hasSameContents(as: .dictionary(["a": .int(1)])))
        #expect(!a.hasSameContents(as: .dictionary(["a": .int(1), "c": .int(2)])))
        #expect(!PlistValue.array([.int(1), .int(2)]).hasSameContents(as: .array([.int(2), .int(1)])))
        #expect(!PlistValue.real(0.0).hasSameContents(as: .real(-0.0)))
        #expect(!PlistValue.string("e\u{301}").hasSameContents(as: .string("\u{e9}")))
    }

    @Test func largeDictionariesUseTheHashedPath() {
        let keys = (0..<40).map { "k\($0)" }
        let forward = PlistDictionary(keys.map { ($0, PlistValue.string($0)) })
        let backward = PlistDictionary(keys.reversed().map { ($0, PlistValue.string($0)) })
        #expect(forward.hasSameContents(as: backward))
        var changed = backward
        changed["k7"] = .string("other")
        #expect(!forward.hasSameContents(as: changed))
    }
}
