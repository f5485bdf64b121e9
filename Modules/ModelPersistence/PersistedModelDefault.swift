import Foundation
import FileStorageKit
import PlistCodec

/// DocumentData's `Model.default`: the model as its file holds it. `@PersistedModel` gives a model
/// `static var default` and `static func loadDefault()`, which call these.
///
/// ```swift
/// let information = UserInformation.default
/// information.username = "Ada"              // written, as with any instance
/// ```
///
/// `default` is a new instance made from the file with the model's `init(from:)`. It is an instance
/// like any other: it reads and writes the same file, sees other instances' and processes' writes,
/// and its values are the file's. A property whose key is missing from the file (or whose value does
/// not decode as its type, which is reported through `PersistenceErrors`) takes its initial value;
/// with no file at all every property does, and the first use writes the file, as any instance's
/// would. Each access makes a new instance (as DocumentData's does; models are not `Sendable`, so
/// one shared instance could not be handed to every thread): keep the one you use in a variable
/// rather than reading `Model.default.x` in a loop.
///
/// Only a model with `init(from:)` has them: a `final` class whose non-persisted stored properties
/// have initial values, are optionals, or are simple types that start empty (`String`, numbers,
/// `Bool`, `Data`, collections).
public enum PersistedModelDefault {
    /// `Model.default`: stops the program when the instance cannot be made, with the message of
    /// `load`'s error (DocumentData's precondition: check `isPersisted` before, when a property has no
    /// initial value).
    ///
    /// - Parameters:
    ///   - type: The model.
    ///   - decode: The model's `init(from:)` (generated).
    public static func instance<Model: PersistedModel>(of type: Model.Type,
                                                       decode: (any Decoder) throws -> Model) -> Model {
        do {
            return try load(type, decode: decode)
        } catch {
            fatalError("\(Model.self).default: \(error)")
        }
    }

    /// `Model.loadDefault()`: a new instance from the file in the folder in effect here, connected to it.
    ///
    /// - Throws: `PersistenceError` (operation `.load`): `.undecodableValue` naming the property that
    ///   has neither a usable value in the file nor an initial value, or `.file` when the file cannot
    ///   be read (a corrupt file is moved aside and reported, then treated as missing).
    public static func load<Model: PersistedModel>(_ type: Model.Type,
                                                   decode: (any Decoder) throws -> Model) throws(PersistenceError) -> Model {
        let name = Model._$persistedDocumentName
        let (document, url) = PersistenceFile.document(forModel: name, format: Model.persistenceFormat)
        var file: PlistDictionary
        do {
            file = try document.read() ?? [:]
        } catch {
            throw PersistenceError(documentName: name, url: url, operation: .load, cause: .file(error))
        }
        let made: Model
        while true {
            do {
                made = try decodeModel(from: file, decode)
                break
            } catch {
                let decodingError = error as? DecodingError
                if case .keyNotFound(let key, let context)? = decodingError, context.codingPath.isEmpty {
                    throw PersistenceError(documentName: name, url: url, operation: .load, cause: .undecodableValue(
                        key: key.stringValue, message: "the file has no value for it and the property has no initial value"))
                }
                let failed = decodingError?.failedKey
                // A value that does not decode is left out: its property takes its initial value.
                guard let failed, file[failed] != nil else {
                    throw PersistenceError(documentName: name, url: url, operation: .load,
                                           cause: .undecodableValue(key: failed ?? "(the file)", message: "\(error)"))
                }
                file.removeValue(forKey: failed)
            }
        }
        // Resolve the file here, in the location in effect now (an instance keeps it for life).
        made._$persistence.willRead(made._$persistedRoot)
        return made
    }

    /// Runs `decode` on a decoder over `file` (the model is not `Decodable` itself: see `ModelCoding`).
    private static func decodeModel<Model>(from file: PlistDictionary, _ decode: (any Decoder) throws -> Model) throws -> Model {
        try withoutActuallyEscaping(decode) { decode in
            let box = DecodingThunk.Result()
            try DecodingThunk.$run.withValue(UncheckedSendable { decoder in box.value = try decode(decoder) }) {
                _ = try PlistDecoder().decode(DecodingThunk.self, from: .dictionary(file))
            }
            guard let model = box.value as? Model else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no model was decoded"))
            }
            return model
        }
    }
}

/// Hands the decoder `PlistDecoder` makes to a closure, so a type that is not `Decodable` can use it.
private struct DecodingThunk: Decodable {
    final class Result { var value: Any? }

    @TaskLocal static var run: UncheckedSendable<(any Decoder) throws -> Void>?

    init(from decoder: any Decoder) throws {
        guard let run = Self.run else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no model to decode"))
        }
        try run.value(decoder)
    }
}

extension DecodingError {
    /// The top-level key the error is about.
    fileprivate var failedKey: String? {
        switch self {
        case .keyNotFound(let key, let context):
            return context.codingPath.first?.stringValue ?? key.stringValue
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.first?.stringValue
        @unknown default:
            return nil
        }
    }
}
