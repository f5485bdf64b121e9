import Foundation
import SQLiteSupport
import FileStorageKit
import GRDB

/// The identifiers being loaded on this thread, innermost first: a load that needs one of them again
/// is a cycle of eager loads, reported instead of recursing until the stack runs out.
final class LoadChain: Sendable {
    let identifier: String
    let next: LoadChain?

    init(_ identifier: String, next: LoadChain?) {
        self.identifier = identifier
        self.next = next
    }

    @TaskLocal static var current: LoadChain?

    static func loading<R>(_ identifier: String, _ body: () throws -> R) throws -> R {
        var link = current
        while let current = link {
            if current.identifier == identifier { throw DocumentStoreError.cyclicLoad(identifier: identifier) }
            link = current.next
        }
        return try $current.withValue(LoadChain(identifier, next: current), operation: body)
    }
}
