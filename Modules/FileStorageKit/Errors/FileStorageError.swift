import Foundation
import PlistCodec

/// A failure reading, writing or locking a file: which file, and why.
///
/// Every I/O failure in FileStorageKit is one of these; nothing crashes and nothing is silently
/// replaced. `errno`-level causes are mapped to the cases an app can act on (`diskFull`,
/// `permissionDenied`, ...); the rest keep their `errno` in `.io`.
///
/// ```swift
/// do {
///     try PlistFileStorage().update(at: url, default: Settings(name: "Ada", launches: 0)) { $0.launches += 1 }
/// } catch FileStorageError.corrupt(let file, let cause) {
///     print("\(file.path) is damaged (\(cause)); it was left as it is")
/// } catch let error as FileStorageError {
///     print(error)          // names the file and the cause: "…/settings.plist: permission denied"
/// }
/// ```
public enum FileStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file does not exist.
    case notFound(URL)
    /// The file exists but is not a valid property list (or not the expected shape); it was left untouched.
    case corrupt(URL, PlistError)
    /// The file's contents decode, but not as the requested type.
    case decodingFailed(URL, String)
    /// The value could not be encoded.
    case encodingFailed(URL, String)
    /// The process may not read or write the file or its folder (`EACCES`, `EPERM`, `EROFS`).
    case permissionDenied(URL)
    /// No room to write (`ENOSPC`, `EDQUOT`, or `EFBIG` when a file-size limit is hit).
    case diskFull(URL)
    /// The exclusive lock was not acquired before the deadline.
    case lockTimeout(URL, seconds: Double)
    /// The target is a symbolic link that leads out of its folder; writing through it is refused.
    case symlinkOutsideFolder(URL, destination: String)
    /// An `update` of a document was started inside another `update` of the same document; its write
    /// would be overwritten by the outer one, so it is refused (see `PlistDocument`).
    case nestedUpdate(URL)
    /// Any other system error, with its `errno` and the operation that failed.
    case io(URL, operation: String, errno: Int32)

    /// The file the error is about.
    public var url: URL {
        switch self {
        case .notFound(let u), .corrupt(let u, _), .decodingFailed(let u, _), .encodingFailed(let u, _),
             .permissionDenied(let u), .diskFull(let u), .lockTimeout(let u, _),
             .symlinkOutsideFolder(let u, _), .nestedUpdate(let u), .io(let u, _, _):
            return u
        }
    }

    public var description: String {
        switch self {
        case .notFound(let u): return "\(u.path): no such file"
        case .corrupt(let u, let e): return "\(u.path): not a valid property list: \(e)"
        case .decodingFailed(let u, let m): return "\(u.path): cannot decode: \(m)"
        case .encodingFailed(let u, let m): return "\(u.path): cannot encode: \(m)"
        case .permissionDenied(let u): return "\(u.path): permission denied"
        case .diskFull(let u): return "\(u.path): no space left (disk full, quota or file-size limit)"
        case .lockTimeout(let u, let s): return "\(u.path): lock not acquired within \(s) s"
        case .symlinkOutsideFolder(let u, let d): return "\(u.path): symbolic link to \(d) leads outside its folder"
        case .nestedUpdate(let u): return "\(u.path): update started inside another update of the same document"
        case .io(let u, let op, let e): return "\(u.path): \(op) failed: \(String(cString: strerror(e))) (errno \(e))"
        }
    }

    /// Maps an `errno` from `operation` on `url` to the most specific case.
    static func from(errno code: Int32, operation: String, url: URL) -> FileStorageError {
        switch code {
        case ENOENT: return .notFound(url)
        case EACCES, EPERM, EROFS: return .permissionDenied(url)
        case ENOSPC, EDQUOT, EFBIG: return .diskFull(url)
        default: return .io(url, operation: operation, errno: code)
        }
    }
}
