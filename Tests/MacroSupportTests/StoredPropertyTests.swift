import MacroSupport
import SwiftSyntax
import Testing

@Suite struct StoredPropertyTests {
    @Test func aPlainVarIsStoredAndPlain() throws {
        for source in ["var name: String", "var count = 0", "var total: Double = 1.5", "@Attribute(default: 1) var priority: Int",
                       "public private(set) var name: String", "nonisolated var name: String"] {
            let declaration = try #require(variable(source))
            #expect(declaration.isStored, "\(source)")
            #expect(declaration.isPlainStoredVar, "\(source)")
            #expect(!declaration.hasObservers, "\(source)")
        }
    }

    @Test func staticClassLazyAndLetAreNotPlain() throws {
        let staticVar = try #require(variable("static var shared = 1"))
        #expect(staticVar.isStatic && staticVar.isStored && !staticVar.isPlainStoredVar)
        let classVar = try #require(variable("class var kind: String { \"c\" }"))
        #expect(classVar.isStatic && !classVar.isStored && !classVar.isPlainStoredVar)
        #expect(classVar.hasModifier(.class) && !classVar.hasModifier(.static))
        let lazyVar = try #require(variable("lazy var index: [Int] = []"))
        #expect(lazyVar.isLazy && !lazyVar.isStatic && lazyVar.isStored && !lazyVar.isPlainStoredVar)
        #expect(lazyVar.modifier(.weak, .lazy)?.name.text == "lazy")
        let constant = try #require(variable("let id: Int"))
        #expect(constant.isLet && constant.isStored && !constant.isPlainStoredVar)
        let staticLet = try #require(variable("@StorageName static let storageName = \"Settings\""))
        #expect(staticLet.isLet && staticLet.isStatic)
        let weak = try #require(variable("unowned(unsafe) var owner: AnyObject"))
        #expect(weak.modifier(.weak, .unowned)?.trimmedDescription == "unowned(unsafe)")
        #expect(weak.modifier(.lazy) == nil)
    }

    @Test func aGeneratedNameIsNotPlain() throws {
        let backing = try #require(variable("var _$backing: Int"))
        #expect(backing.isStored && !backing.isPlainStoredVar)
        let underscored = try #require(variable("var _name: Int"))
        #expect(underscored.isPlainStoredVar, "only the plug-ins' `_$` prefix is reserved")
    }

    @Test func computedPropertiesAreNotStored() throws {
        for source in ["var total: Int { 1 }", "var total: Int { get { 1 } }", "var total: Int { get { 1 } set { } }",
                       "var total: Int { _read { yield 1 } }"] {
            let declaration = try #require(variable(source))
            #expect(!declaration.isStored, "\(source)")
            #expect(!declaration.isPlainStoredVar, "\(source)")
            #expect(!declaration.hasObservers, "\(source)")
        }
        let getter = try #require(variable("var total: Int { 1 }"))
        #expect(getter.accessor(.get) == nil, "a bare getter has no accessor list")
        let explicit = try #require(variable("var total: Int { get { 1 } set { } }"))
        #expect(explicit.accessor(.get) != nil && explicit.accessor(.set) != nil)
    }

    @Test func observersKeepAPropertyStoredButNotPlain() throws {
        for (source, willSet, didSet) in [("var total: Double = 0 { didSet { } }", false, true),
                                          ("var total: Double { willSet { } }", true, false),
                                          ("var total: Double = 0 { willSet(next) { } didSet { } }", true, true)] {
            let declaration = try #require(variable(source))
            #expect(declaration.isStored, "\(source)")
            #expect(declaration.hasObservers, "\(source)")
            #expect(!declaration.isPlainStoredVar, "\(source)")
            #expect((declaration.accessor(.willSet) != nil) == willSet, "\(source)")
            #expect((declaration.accessor(.didSet) != nil) == didSet, "\(source)")
        }
        let named = try #require(variable("var total: Double = 0 { willSet(next) { print(next) } }"))
        #expect(named.accessor(.willSet)?.parameters?.name.text == "next")
        #expect(named.accessor(.willSet)?.body?.statements.trimmedDescription == "print(next)")
    }

    @Test func theFirstBindingIsDescribed() throws {
        let one = try #require(variable("var count: Int = 0"))
        #expect(one.singleName == "count")
        #expect(one.declaredType?.trimmedDescription == "Int")
        #expect(one.initialValue?.trimmedDescription == "0")
        #expect(one.hasInitializer)
        let untyped = try #require(variable("var names = [String]()"))
        #expect(untyped.declaredType == nil && untyped.hasInitializer)
        let escaped = try #require(variable("var `default`: Int"))
        #expect(escaped.singleName == "`default`", "the name is as written")
    }

    @Test func multipleBindingsHaveNoSingleName() throws {
        let two = try #require(variable("var a, b: Int"))
        #expect(two.singleIdentifier == nil && two.singleName == nil)
        #expect(two.isStored && !two.isPlainStoredVar)
        #expect(two.declaredType == nil, "the type annotation belongs to the last binding")
        let initialized = try #require(variable("var a = 1, b = 2"))
        #expect(initialized.singleName == nil && initialized.hasInitializer)
        let tuple = try #require(variable("var (a, b) = (1, 2)"))
        #expect(tuple.singleIdentifier == nil && !tuple.isPlainStoredVar, "a tuple pattern binds no single name")
    }
}
