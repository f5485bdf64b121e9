import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// `@StorageName` on anything but a static constant: DocumentData's error, with a fix-it that makes
/// the declaration one, and the property is never persisted as data.
@Suite struct StorageNameDiagnosticTests {
    static let message = "@StorageName only applies to a static constant naming the document, e.g. @StorageName static let storageName = \"Settings\"; on an instance property or a 'var' the name would be persisted as data, not used"

    /// DocumentData's client: `@StorageName var storeName = "Default"`.
    @Test func anInstanceVarIsAnErrorAndNotAStoredKey() {
        expectExpansion(
            """
            @PersistedModel
            final class Store {
                @StorageName var storeName = "Default"
            }
            """,
            expandedSource: """
            final class Store {
                var storeName = "Default"

            \(plumbing("Store", coding: emptyFinalCoding("Store")))
            }

            \(conformances("Store"))
            """,
            diagnostics: [DiagnosticSpec(message: Self.message, line: 3, column: 18, fixIts: [FixItSpec(message: "make it 'static let'")])],
            fixedSource: """
            @PersistedModel
            final class Store {
                @StorageName static let storeName = "Default"
            }
            """)
    }

    @Test func anInstanceLetIsAnErrorNotALetWarning() {
        expectExpansion(
            """
            @PersistedModel
            final class Store {
                @StorageName let storeName = "Default"
            }
            """,
            expandedSource: """
            final class Store {
                let storeName = "Default"

            \(plumbing("Store", coding: emptyFinalCoding("Store")))
            }

            \(conformances("Store"))
            """,
            diagnostics: [DiagnosticSpec(message: Self.message, line: 3, column: 18, fixIts: [FixItSpec(message: "make it 'static let'")])],
            fixedSource: """
            @PersistedModel
            final class Store {
                @StorageName static let storeName = "Default"
            }
            """)
    }

    @Test func aStaticVarIsAnErrorFixedToStaticLet() {
        expectExpansion(
            """
            @PersistedModel
            final class Store {
                @StorageName private static var storeName = "Default"
            }
            """,
            expandedSource: """
            final class Store {
                private static var storeName = "Default"

            \(plumbing("Store", coding: emptyFinalCoding("Store")))
            }

            \(conformances("Store"))
            """,
            diagnostics: [DiagnosticSpec(message: Self.message, line: 3, column: 33, fixIts: [FixItSpec(message: "make it 'static let'")])],
            fixedSource: """
            @PersistedModel
            final class Store {
                @StorageName private static let storeName = "Default"
            }
            """)
    }

    /// The fixed declaration expands cleanly and names the document.
    @Test func theFixedDeclarationNamesTheDocument() {
        expectExpansion(
            """
            @PersistedModel
            final class Store {
                @StorageName static let storeName = "Default"
            }
            """,
            expandedSource: """
            final class Store {
                static let storeName = "Default"

            \(plumbing("Store", documentName: "Default", coding: emptyFinalCoding("Store")))
            }

            \(conformances("Store"))
            """)
    }

    @Test func onAFunctionItIsAnError() {
        expectExpansion(
            """
            final class Store {
                @StorageName func storeName() -> String { "Default" }
            }
            """,
            expandedSource: """
            final class Store {
                func storeName() -> String { "Default" }
            }
            """,
            diagnostics: [DiagnosticSpec(message: Self.message, line: 2, column: 5)])
    }
}
