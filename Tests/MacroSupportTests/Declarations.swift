import SwiftParser
import SwiftSyntax

/// The members of `class C { <source> }`, parsed as swift-syntax parses a macro's input.
///
/// Members are parsed inside a class so that `class var` and `static var` read as they do in a type.
func members(_ source: String) -> [DeclSyntax] {
    let file = Parser.parse(source: "class C {\n\(source)\n}")
    guard let type = file.statements.first?.item.as(ClassDeclSyntax.self) else { return [] }
    return type.memberBlock.members.map(\.decl)
}

/// The first `var` or `let` among `members(source)`.
func variable(_ source: String) -> VariableDeclSyntax? {
    members(source).lazy.compactMap { $0.as(VariableDeclSyntax.self) }.first
}

/// The first declaration of `source` at the top level of a file, as a declaration group (a class, a
/// struct, an enum, …), typed as macros receive it.
func group(_ source: String) -> (any DeclGroupSyntax)? {
    Parser.parse(source: source).statements.first?.item.asProtocol(DeclGroupSyntax.self)
}

/// The type written in `var x: <type>`.
func type(_ source: String) -> TypeSyntax? {
    variable("var x: \(source)")?.declaredType
}
