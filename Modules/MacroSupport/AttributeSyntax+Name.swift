import SwiftSyntax

extension AttributeSyntax {
    /// The attribute's name without a module prefix: `Name` for `@Name`, `@Name(…)` and `@Module.Name`.
    ///
    /// The plug-ins match their marker attributes by this name, so a user may qualify a marker with its
    /// library (`@ManagedStorage.Transient`) or not. `nil` only for an attribute whose name is missing
    /// (source that does not parse).
    package var unqualifiedName: String? {
        attributeName.trimmedDescription.split(separator: ".").last.map(String.init)
    }
}
