import Foundation
import ManagedStorage

// Two versions of a ledger, for migration tests that cross processes (`managed-probe migrate`). Both
// name their tables "Entry" and "Account"; version 2 renames `title` to `label`, adds `revision` with
// a default, and removes `memo` (which makes the migration rebuild the table: the slow path).

@StorageEntity(name: "Account")
public final class AccountV1 {
    public var name: String
    public var entries: [EntryV1]
}

@StorageEntity(name: "Entry")
public final class EntryV1 {
    public var code: Int64
    public var title: String
    public var amount: Double
    public var memo: String?
    public var account: AccountV1?
}

@StorageEntity(name: "Account")
public final class AccountV2 {
    public var name: String
    public var entries: [EntryV2]
}

@StorageEntity(name: "Entry")
public final class EntryV2 {
    public var code: Int64
    @Attribute(originalName: "title")
    public var label: String
    public var amount: Double
    @Attribute(default: 1)
    public var revision: Int64
    public var account: AccountV2?
}

public let ledgerModelV1 = StorageModel(entities: [AccountV1.self, EntryV1.self])
/// Version 2 runs an SQL version (account names upper-cased) before the inferred changes: two
/// transactions, one unit.
public let ledgerModelV2 = StorageModel(entities: [AccountV2.self, EntryV2.self], versions: [
    StorageSchemaVersion("2-ledger-upper") { db in
        try db.execute(sql: #"UPDATE "Account" SET "name" = upper("name")"#)
    },
])

/// Fills a version-1 ledger with `count` entries over 10 accounts: entry `i` has code `i`, title
/// `"entry i"`, amount `i / 4`, a memo when `i` is even, and account `i % 10`.
public func fillLedgerV1(_ manager: SQLiteStorageManager, entries count: Int) throws {
    try manager.writeAndWait { storage in
        let accounts = (0..<10).map { n -> AccountV1 in
            let account = storage.insertNewObject(ofType: AccountV1.self)
            account.name = "account \(n)"
            return account
        }
        for i in 0..<count {
            let entry = storage.insertNewObject(ofType: EntryV1.self)
            entry.code = Int64(i)
            entry.title = "entry \(i)"
            entry.amount = Double(i) / 4
            entry.memo = i % 2 == 0 ? "memo \(i)" : nil
            entry.account = accounts[i % 10]
        }
    }
}
