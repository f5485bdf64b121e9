import Foundation

/// Where a `PlistDocument`'s bytes live: a file on disk or a `MemoryFolder` entry. Both give the
/// same guarantees; the document above them holds every rule.
protocol DocumentBackend: AnyObject, Sendable {
    /// The file's URL (for a memory document, `/<folder name>/<file name>`).
    var url: URL { get }
    /// The monitor whose token moves when the bytes may have changed.
    var monitor: FileChangeMonitor { get }
    /// The bytes, or `nil` when there is no file.
    func read() throws(FileStorageError) -> Data?
    /// Replaces the bytes durably and atomically.
    func write(_ data: Data) throws(FileStorageError)
    /// Removes the file; a missing file is not an error.
    func remove() throws(FileStorageError)
    /// Whether the file exists now (asked before locking to remove it, so a missing one costs no lock file).
    func exists() -> Bool
    /// Renames the file aside (`<name>.<label>-<timestamp>`); returns its new URL.
    func moveAside(label: String) throws(FileStorageError) -> URL
    /// Makes the folder, before the first write; returns whether the monitor was replaced.
    func prepareForWrite() throws(FileStorageError) -> Bool
    /// Runs `body` holding the exclusive lock (not re-entrant: `PlistDocument` adds the rule).
    func withExclusiveLock<R>(timeout: Duration, _ body: () throws -> R) throws -> R
    /// The same, waiting with `Task.sleep`.
    func withExclusiveLock<R>(timeout: Duration, isolation: isolated (any Actor)?,
                              _ body: () async throws -> R) async throws -> R
}

/// A document in a file: `DurableFile` writes, `FileLock`, `FileChangeMonitor`.
// @unchecked Sendable: `currentMonitor`, `retired` and `folderIsDurable` are only touched under `lock`; every other field is a constant
final class FileDocumentBackend: DocumentBackend, @unchecked Sendable {
    let url: URL
    /// `url`'s path, its folder's, and its lock's, worked out once: `URL` operations parse and copy.
    private let path: String
    private let folderPath: String
    private let sidecar: FileLock.Sidecar
    private let lock = NSLock()
    private var currentMonitor: FileChangeMonitor
    /// Monitors replaced by an inotify one: kept alive, since hot paths may hold them unretained.
    private var retired: [FileChangeMonitor] = []
    /// Whether this document has had `AppDirectories.createFolder` make its folder durable (its first
    /// write does): later writes only check that the folder is still there.
    private var folderIsDurable = false

    init(url: URL) {
        self.url = url.standardizedFileURL
        path = self.url.path
        folderPath = DurableFile.parentPath(of: path)
        sidecar = FileLock.Sidecar(self.url)
        currentMonitor = FileChangeMonitor(url: self.url)
    }

    var monitor: FileChangeMonitor { lock.withLock { currentMonitor } }

    func read() throws(FileStorageError) -> Data? { try DurableFile.readIfPresent(atPath: path, url: url) }

    /// Tells the inotify hub the rename is this document's own, so its event does not make the
    /// document read back what it just wrote (`PlistDocument`'s cache).
    func write(_ data: Data) throws(FileStorageError) {
        try DurableFile.write(data, to: url, announcingTo: monitor.ownWriteCounter)
    }
    func remove() throws(FileStorageError) {
        guard DurableFile.entryExists(atPath: path) else { return }
        try DurableFile.remove(url)
    }
    func exists() -> Bool { DurableFile.entryExists(atPath: path) }
    func moveAside(label: String) throws(FileStorageError) -> URL { try DurableFile.moveAside(url, label: label) }

    /// Creates the folder, or makes an existing one durable (`AppDirectories.createFolder`: a folder
    /// another process made and died before flushing would otherwise vanish at a power cut, with every
    /// write acknowledged in it), and switches the monitor to inotify once it can watch it (inotify
    /// needs the folder to exist; opening a document creates nothing).
    func prepareForWrite() throws(FileStorageError) -> Bool {
        var info = stat()
        let durable = lock.withLock { folderIsDurable }
        if !durable || stat(folderPath, &info) != 0 || info.st_mode & S_IFMT != S_IFDIR {
            try AppDirectories.createFolder(url.deletingLastPathComponent())
            lock.withLock { folderIsDurable = true }
        }
        return lock.withLock {
            guard !currentMonitor.usesInotify, InotifyHub.shared != nil else { return false }
            let replacement = FileChangeMonitor(url: url)
            guard replacement.usesInotify else { return false }
            retired.append(currentMonitor)
            currentMonitor = replacement
            return true
        }
    }

    func withExclusiveLock<R>(timeout: Duration, _ body: () throws -> R) throws -> R {
        try FileLock.withExclusiveLock(for: sidecar, timeout: timeout, body)
    }

    func withExclusiveLock<R>(timeout: Duration, isolation: isolated (any Actor)?,
                              _ body: () async throws -> R) async throws -> R {
        try await FileLock.withExclusiveLock(for: sidecar, timeout: timeout, isolation: isolation, body)
    }
}

/// A document in a `MemoryFolder`.
final class MemoryDocumentBackend: DocumentBackend {
    let folder: MemoryFolder
    let fileName: String
    let url: URL
    let monitor: FileChangeMonitor

    init(folder: MemoryFolder, fileName: String) {
        self.folder = folder
        self.fileName = fileName
        url = folder.url(for: fileName)
        monitor = FileChangeMonitor(url: url, counter: folder.counter(for: fileName))
    }

    func read() throws(FileStorageError) -> Data? { folder.contents(of: fileName) }
    func write(_ data: Data) throws(FileStorageError) { folder.setContents(data, of: fileName) }
    func remove() throws(FileStorageError) {
        if folder.contents(of: fileName) != nil { folder.setContents(nil, of: fileName) }
    }
    func exists() -> Bool { folder.contents(of: fileName) != nil }

    func moveAside(label: String) throws(FileStorageError) -> URL {
        let base = "\(fileName).\(label)-\(DurableFile.timestamp())"
        var name = base
        var attempt = 1
        while folder.contents(of: name) != nil {
            attempt += 1
            name = "\(base)-\(attempt)"
        }
        folder.move(fileName, to: name)
        return folder.url(for: name)
    }

    func prepareForWrite() throws(FileStorageError) -> Bool { false }

    func withExclusiveLock<R>(timeout: Duration, _ body: () throws -> R) throws -> R {
        let deadline = ContinuousClock.now + timeout
        var pause = FileLock.Pause()
        while !folder.tryLock(fileName) {
            guard ContinuousClock.now < deadline else { throw FileLock.timeoutError(url, timeout) }
            usleep(UInt32(pause.next()))
        }
        defer { folder.unlock(fileName) }
        return try body()
    }

    func withExclusiveLock<R>(timeout: Duration, isolation: isolated (any Actor)?,
                              _ body: () async throws -> R) async throws -> R {
        let deadline = ContinuousClock.now + timeout
        var pause = FileLock.Pause()
        while !folder.tryLock(fileName) {
            guard ContinuousClock.now < deadline else { throw FileLock.timeoutError(url, timeout) }
            try await Task.sleep(for: .microseconds(pause.next()))
        }
        defer { folder.unlock(fileName) }
        return try await body()
    }
}
