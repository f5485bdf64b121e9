import Foundation

/// The statements of the save path, which the writer connection's `StatementCache` keeps by position
/// (their slot is the raw value) instead of by hashing their SQL.
enum WriterStatement: Int, CaseIterable {
    case insertDocument, selectCurrent, updateDocument, prune, insertRevision, insertChange

    var sql: String {
        switch self {
        case .insertDocument:
            "INSERT INTO documents(id, kind, revision, deleted, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING"
        case .selectCurrent: "SELECT number, revision, deleted, body, kind FROM documents WHERE id = ?"
        case .updateDocument: "UPDATE documents SET kind = ?, revision = ?, deleted = ?, body = ? WHERE number = ?"
        // Leaves that old go too: a branch past the horizon is superseded (RevisionTree.prune).
        case .prune: "DELETE FROM revisions WHERE document = ? AND generation <= ?"
        case .insertRevision:
            "INSERT OR IGNORE INTO revisions(document, revision, parent, generation, deleted, body) VALUES (?, ?, ?, ?, ?, ?)"
        case .insertChange: "INSERT INTO changes(document, revision, deleted) VALUES (?, ?, ?)"
        }
    }
}
