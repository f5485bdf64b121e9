import SwiftSyntax

extension AttributeListSyntax {
    /// The first attribute whose unqualified name is `name` (`@Name` or `@Module.Name`), if any.
    ///
    /// Attributes inside an `#if` clause are not looked at.
    package func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            if case .attribute(let attribute) = element, attribute.unqualifiedName == name { return attribute }
        }
        return nil
    }

    /// Whether an attribute named `name` (`@Name` or `@Module.Name`) is in the list.
    package func contains(attributeNamed name: String) -> Bool {
        attribute(named: name) != nil
    }
}
