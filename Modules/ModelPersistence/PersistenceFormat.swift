/// The property-list format a model's file is written in.
///
/// Binary is the default, as it is for `PropertyListEncoder`. A class asks for XML by declaring
/// `static let persistenceFormat: PersistenceFormat = .xml`: its file is then what
/// `PropertyListEncoder` writes with `outputFormat = .xml` (keys sorted). Either format is read,
/// whatever the class asks for: the format only decides how the file is written.
public enum PersistenceFormat: Sendable, Hashable {
    /// A binary property list (`bplist00`), keys in declaration order.
    case binary
    /// An XML property list, keys sorted.
    case xml
}
