import SwiftSyntax

extension TypeSyntax {
    /// Whether the type is spelled as an optional: `T?`, `T!`, `Optional<T>` or `Swift.Optional<T>`.
    ///
    /// A macro sees spelling only, so a typealias of an optional is not one here.
    package var isOptional: Bool {
        if self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let named = self.as(IdentifierTypeSyntax.self) { return named.name.text == "Optional" }
        if let member = self.as(MemberTypeSyntax.self) {
            return member.name.text == "Optional" && member.baseType.trimmedDescription == "Swift"
        }
        return false
    }
}
