import MacroSupport
import SwiftSyntax
import Testing

@Suite struct AccessLevelTests {
    @Test func modifiersGiveTheAccess() throws {
        let cases: [(source: String, isPublic: Bool, publicPrefix: String, setterPrefix: String)] = [
            ("var x: Int", false, "", ""),
            ("public var x: Int", true, "public ", "public "),
            ("open var x: Int", true, "public ", "public "),
            ("package var x: Int", false, "", "package "),
            ("internal var x: Int", false, "", "internal "),
            ("fileprivate var x: Int", false, "", "fileprivate "),
            ("private var x: Int", false, "", "private "),
            ("public private(set) var x: Int", true, "public ", "private "),
            ("private(set) public var x: Int", true, "public ", "private "),
            ("open internal(set) var x: Int", true, "public ", "internal "),
            ("package fileprivate(set) var x: Int", false, "", "fileprivate "),
            ("public static var x: Int", true, "public ", "public "),
        ]
        for expected in cases {
            let declaration = try #require(variable(expected.source))
            #expect(declaration.isPublic == expected.isPublic, "\(expected.source)")
            #expect(declaration.publicAccessPrefix == expected.publicPrefix, "\(expected.source)")
            #expect(declaration.setterAccessPrefix == expected.setterPrefix, "\(expected.source)")
        }
    }

    @Test func aTypesAccessIsReadTheSameWay() throws {
        for (source, prefix) in [("public final class A {}", "public "), ("open class A {}", "public "),
                                 ("package final class A {}", ""), ("final class A {}", "")] {
            let classDecl = try #require(group(source)?.as(ClassDeclSyntax.self))
            #expect(classDecl.publicAccessPrefix == prefix, "\(source)")
        }
        let finalClass = try #require(group("public final class A {}")?.as(ClassDeclSyntax.self))
        #expect(finalClass.hasModifier(.final) && !finalClass.isStatic)
    }
}
