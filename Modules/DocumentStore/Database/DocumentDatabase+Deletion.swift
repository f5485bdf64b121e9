import Foundation
import FileStorageKit
import GRDB
import GRDBSQLite

extension DocumentDatabase {
    /// Removes the store's files (`<file>`, `-wal`, `-shm`, `-journal`) and closes the pool, when no
    /// other connection has the file open; afterwards every access throws ``DocumentStoreError/databaseDeleted(file:)``.
    ///
    /// Whether anyone else has it open is asked of SQLite: leaving WAL mode needs the only connection
    /// to the file, in this process or any other (every open WAL connection holds a shared lock on it),
    /// so the switch to `journal_mode = DELETE` fails at once, with nothing changed, when one exists.
    /// The files are then unlinked under an exclusive lock, so nobody can read or write them meanwhile,
    /// and the folder is flushed (`fsync`), so the deletion survives a power cut.
    func deleteFiles() throws(DocumentStoreError) {
        try checkNotDeleted()
        // This pool's idle readers are connections too.
        pool.releaseMemory()
        let timeout = configuration.busyTimeout.components
        let busyMilliseconds = Int32(clamping: timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000)
        do {
            try pool.writeWithoutTransaction { db in
                let connection = db.sqliteConnection!
                // Ask once, without waiting for the others to let go.
                sqlite3_busy_timeout(connection, 0)
                defer { sqlite3_busy_timeout(connection, busyMilliseconds) }
                let mode: String?
                do {
                    mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                    throw DocumentStoreError.databaseInUse(file: path)
                }
                guard mode?.lowercased() == "delete" else {
                    throw DocumentStoreError.databaseInUse(file: path)
                }
                do {
                    try db.execute(sql: "BEGIN EXCLUSIVE TRANSACTION")
                } catch {
                    // Back to what the pool expects before reporting.
                    _ = try? String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                    throw DocumentStoreError.databaseInUse(file: path)
                }
                isDeleted.store(true, ordering: .releasing)
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
                // The sidecar every open store holds a shared lock on (StoreLock): nobody else has
                // the store open, and this one's descriptor stays valid after the unlink.
                unlink(FileLock.lockURL(for: URL(fileURLWithPath: path)).path)
                try? db.execute(sql: "ROLLBACK TRANSACTION")
                writerStatements.finalize()
            }
            try pool.close()
            // The unlinks are changes to the folder: until it is flushed, a power cut brings the
            // deleted store back with its documents (issue 45).
            let file = URL(fileURLWithPath: path)
            do {
                try DurableFile.syncFolder(file.deletingLastPathComponent(), url: file)
            } catch {
                throw DocumentStoreError.deletionNotDurable(file: path, cause: "\(error)")
            }
        } catch let error as DocumentStoreError {
            throw error
        } catch {
            throw Self.storeError(error, file: path, busyTimeout: configuration.busyTimeout)
        }
    }
}
