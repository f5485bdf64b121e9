import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Foundation
import Testing
import ManagedStorageMacros

/// The macros under test, by the names ManagedStorage declares them with.
let storageMacros: [String: MacroSpec] = [
    "StorageEntity": MacroSpec(type: StorageEntityMacro.self, conformances: ["StorageEntity", "Sendable"]),
    "_StorageProperty": MacroSpec(type: StoragePropertyMacro.self),
    "Relationship": MacroSpec(type: StorageMarkerMacro.self),
    "Transient": MacroSpec(type: StorageMarkerMacro.self),
    "Attribute": MacroSpec(type: StorageMarkerMacro.self),
]

/// Expands `source` and returns the expanded text and the diagnostics' messages.
func expand(_ source: String) -> (text: String, diagnostics: [String]) {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(sourceFiles: [file: .init(moduleName: "Test", fullFilePath: "Test.swift")])
    let expanded = file.expand(macroSpecs: storageMacros, contextGenerator: { _ in context }, indentationWidth: .spaces(4))
    return (normalized(expanded.description), context.diagnostics.map(\.message))
}

/// `text` with every run of whitespace as one space, so expectations do not depend on the formatter.
func normalized(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        .replacingOccurrences(of: "{ }", with: "{}")
}

@Suite struct StorageEntityExpansionTests {
    @Test func entityGetsAccessorsDescriptorsReadOnlyCopyAndUnavailableSendable() {
        let (text, diagnostics) = expand("""
            @StorageEntity
            public final class Customer {
                public var name: String
                @Relationship(deleteRule: .deny)
                public var orders: [Order]
                @Relationship(deleteRule: .cascade, inverse: "customer")
                public var profile: CustomerProfile?
                @Transient var cache = 0
                static var shared = 1
                var computed: Int { 1 }
            }
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        for expected in [
            "get { _$backing.get(0) }", "set { _$backing.set(0, newValue) }",
            "get { _$backing.get(1) }", "get { _$backing.get(2) }",
            ".property(\"name\", \\Customer.name)",
            ".property(\"orders\", \\Customer.orders, deleteRule: .deny)",
            ".property(\"profile\", \\Customer.profile, deleteRule: .cascade, inverse: \\CustomerProfile.customer)",
            "public static var entityName: String { \"Customer\" }",
            "public struct ReadOnly: Sendable, Equatable",
            "public let orders: ManagedStorage._ReadOnlyFieldOf<[Order]>",
            "ReadOnly(objectID: _$backing.permanentObjectID(), name: ManagedStorage._readOnlyValue(self.name)",
            "extension Customer: ManagedStorage.StorageEntity {}",
            "@available(*, unavailable, message: \"an entity belongs to its storage; send toReadOnly() or objectID instead\") extension Customer: @unchecked Sendable {}",
        ] {
            #expect(text.contains(normalized(expected)), "missing \(expected) in\n\(text)")
        }
        #expect(!text.contains("_$backing.get(3)"), "the transient, static and computed properties are not stored")
    }

    @Test func tableNameFromTheArgument() {
        let (text, _) = expand("""
            @StorageEntity(name: "orders_v2")
            final class Order {
                var orderID: Int64
            }
            """)
        #expect(text.contains(normalized("static var entityName: String { \"orders_v2\" }")))
        #expect(!text.contains("public let _$backing"), "an internal class gets internal members")
    }

    @Test func migrationHintsReachTheDescriptors() {
        let (text, diagnostics) = expand("""
            @StorageEntity(name: "Client", originalName: "Customer")
            final class Client {
                @Attribute(originalName: "name")
                var fullName: String
                @Attribute(default: 1)
                var priority: Int
                @Attribute(originalName: "state", default: OrderStatus.pending)
                var status: OrderStatus
                @Relationship(deleteRule: .cascade, originalName: "buyer")
                var owner: Person?
                var plain: String?
            }
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        for expected in [
            "static var originalEntityName: String? { \"Customer\" }",
            "static var entityName: String { \"Client\" }",
            ".property(\"fullName\", \\Client.fullName, originalName: \"name\")",
            ".property(\"priority\", \\Client.priority, default: 1)",
            ".property(\"status\", \\Client.status, originalName: \"state\", default: OrderStatus.pending)",
            ".property(\"owner\", \\Client.owner, deleteRule: .cascade, originalName: \"buyer\")",
            ".property(\"plain\", \\Client.plain)",
            "get { _$backing.get(1) }",
        ] {
            #expect(text.contains(normalized(expected)), "missing \(expected) in\n\(text)")
        }
        #expect(!expand("@StorageEntity final class A { var x: Int }").text.contains("originalEntityName"),
                "an entity that was not renamed keeps the protocol's nil")
    }

    @Test func whatCannotBeStoredIsDiagnosed() {
        #expect(expand("@StorageEntity class Order { var orderID: Int64 }").diagnostics
                == ["@StorageEntity requires a final class (entities are not subclassed; declare another entity instead)"])
        #expect(expand("@StorageEntity struct Order { var orderID: Int64 }").diagnostics.first?.contains("can only be applied to a class") == true)
        let members = expand("""
            @StorageEntity
            final class Order {
                let orderID: Int64
                var status: String = "pending"
                var total: Double { didSet { } }
                var a, b: Int
            }
            """).diagnostics
        #expect(members.count == 4, "\(members)")
        #expect(members.contains { $0.contains("'let' properties are not stored") })
        #expect(members.contains { $0.contains("has no initial value") })
        #expect(members.contains { $0.contains("'willSet' or 'didSet'") })
        #expect(members.contains { $0.contains("its own 'var'") })
    }
}
