import FileStorageKit
import Foundation

/// What went wrong in a `DataPersistence` operation, with the file and the cause.
///
/// The first five cases are the original design's; their payloads now carry the underlying error,
/// which for file problems is a `FileStorageError` naming the file (and, for a corrupt file, the
/// byte offset or line where reading stopped). The remaining cases are new: index conflicts between
/// processes, and problems the original design hid.
///
/// ```swift
/// do {
///     try persistence.createItem(card)
/// } catch DataPersistenceError.propertyListDecodingError(let cause) {
///     print("the file is damaged and was left as it is: \(cause)")
/// }
/// ```
public enum DataPersistenceError: Error, CustomStringConvertible {
    /// An item could not be encoded as a property list (for example a top-level scalar inside a
    /// nested container Foundation refuses too). Nothing was written.
    case propertyListEncodingError(any Error)
    /// The file exists but is not a property-list array of the item type. The file is left
    /// byte-for-byte as it is and no mutation proceeds. The payload is a `FileStorageError`:
    /// `.corrupt` (with the byte offset or line) or `.decodingFailed` (with the coding path).
    case propertyListDecodingError(any Error)
    /// Writing failed: the folder could not be created, the lock was not acquired in time, the disk
    /// is full, or permission was denied. The previous version of the file is intact.
    case writingError(any Error)
    /// A deletion could not be written; the item is still in the file.
    case deletingError(any Error)
    /// The path exists but has no contents to read, for example because it is a folder.
    case noContentsAtPath(String)
    /// The file could not be read (permission denied, an I/O error).
    case readingError(any Error)
    /// The filename given to `init` is not a single path component.
    case invalidFilename(String)
    /// The index is outside the items as they were when the caller last loaded them.
    case indexOutOfRange(index: Int, count: Int)
    /// The item at `index` is no longer the one the caller loaded: another process or instance
    /// changed the file since. Nothing was changed; call `loadItems()` and try again.
    case indexConflict(index: Int, path: String)
    /// `replaceAllItems(with:)` (or the tutorial's `synchronize(_:)`) was refused because the file
    /// changed since this instance last loaded it; replacing the array would drop those changes.
    /// Call `loadItems()` and try again.
    case outOfDate(path: String)

    public var description: String {
        switch self {
        case .propertyListEncodingError(let e): return "cannot encode the items: \(e)"
        case .propertyListDecodingError(let e): return "cannot decode the items; the file was left unchanged: \(e)"
        case .writingError(let e): return "cannot write the items: \(e)"
        case .deletingError(let e): return "cannot write the deletion: \(e)"
        case .noContentsAtPath(let path): return "\(path): no contents to read (is it a folder?)"
        case .readingError(let e): return "cannot read the items: \(e)"
        case .invalidFilename(let name):
            return "invalid filename \(String(reflecting: name)): it must be one path component, not empty, '.' or '..'"
        case .indexOutOfRange(let index, let count):
            return "index \(index) is out of range: the items last loaded were \(count)"
        case .indexConflict(let index, let path):
            return "\(path): the item at index \(index) changed since it was loaded; nothing was changed, reload and retry"
        case .outOfDate(let path):
            return "\(path): the file changed since it was loaded; replacing all items would drop those changes, reload and retry"
        }
    }
}
