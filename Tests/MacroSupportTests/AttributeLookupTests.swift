import MacroSupport
import SwiftSyntax
import Testing

@Suite struct AttributeLookupTests {
    @Test func anAttributeIsFoundWithOrWithoutItsModulePrefix() throws {
        for source in ["@Transient var cache: Int", "@ManagedStorage.Transient var cache: Int",
                       "@Transient() var cache: Int", "@Outer.Inner.Transient var cache: Int"] {
            let declaration = try #require(variable(source))
            #expect(declaration.hasAttribute("Transient"), "\(source)")
            #expect(declaration.attribute(named: "Transient")?.unqualifiedName == "Transient", "\(source)")
        }
    }

    @Test func onlyTheWholeLastNameMatches() throws {
        let declaration = try #require(variable("@TransientCache @Transient.Kind @ManagedStorage var cache: Int"))
        #expect(!declaration.hasAttribute("Transient"))
        #expect(!declaration.hasAttribute("ManagedStorage.Transient"), "a qualified name is never asked for")
        #expect(declaration.hasAttribute("Kind"))
        #expect(declaration.hasAttribute("ManagedStorage"))
        #expect(!declaration.hasAttribute("transientCache"), "names are case-sensitive")
    }

    @Test func theFirstOfTwoAttributesOfOneNameIsReturned() throws {
        let declaration = try #require(variable(#"@Attribute(originalName: "a") @Attribute(default: 1) var x: Int"#))
        let attribute = try #require(declaration.attribute(named: "Attribute"))
        #expect(attribute.arguments?.trimmedDescription == #"originalName: "a""#)
    }

    @Test func attributesInsideAnIfConfigAreNotSeen() throws {
        let declaration = try #require(variable("""
            #if DEBUG
            @Transient
            #endif
            var cache: Int
            """))
        #expect(!declaration.hasAttribute("Transient"))
    }

    @Test func aDeclarationGroupIsAskedThroughItsAttributes() throws {
        let observable = try #require(group("@Observation.Observable final class Model {}"))
        #expect(observable.attributes.contains(attributeNamed: "Observable"))
        #expect(observable.attributes.attribute(named: "Observable")?.attributeName.trimmedDescription == "Observation.Observable")
        let plain = try #require(group("@MainActor final class Model {}"))
        #expect(!plain.attributes.contains(attributeNamed: "Observable"))
        let enumDecl = try #require(group("@ModelCodingKey enum CodingKeys: String, CodingKey {}")?.as(EnumDeclSyntax.self))
        #expect(enumDecl.hasAttribute("ModelCodingKey"))
    }
}
