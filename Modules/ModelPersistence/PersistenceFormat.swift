import PlistCodec

/// The property-list format a model's file is written in: PlistCodec's `PlistFormat`, the one format
/// vocabulary of every store.
///
/// Binary is the default, as it is for `PropertyListEncoder`. A class asks for XML by declaring
/// `static let persistenceFormat: PersistenceFormat = .xml`: its file is then what
/// `PropertyListEncoder` writes with `outputFormat = .xml` (keys sorted). Either format is read,
/// whatever the class asks for: the format only decides how the file is written (`.openStep`,
/// which can be read but not written, is written as XML).
public typealias PersistenceFormat = PlistFormat
