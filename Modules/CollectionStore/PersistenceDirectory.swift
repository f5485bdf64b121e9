import FileStorageKit

/// The tutorial's name for where the file goes: FileStorageKit's `StorageFolder` (`.documents`,
/// `.caches`, `.applicationSupport`, `.folder(url)`, and `.memory(folder)` for tests without a disk).
public typealias PersistenceDirectory = StorageFolder
