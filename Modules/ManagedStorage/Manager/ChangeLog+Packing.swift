import Foundation

/// How a commit's entry is written in the log's `changes` column: its sections, each the row ids of
/// one entity and kind of change packed as runs.
extension ChangeLog {
    /// One entity and kind of change of a commit: its row ids, packed (``pack(_:)``).
    struct Section: Equatable {
        let kind: Kind
        let entity: String
        let rows: Data
    }

    /// The format byte an entry starts with.
    static let format: UInt8 = 1

    /// A commit's sections: per kind, per entity (by name), the row ids packed; then the reset entities.
    static func sections(of changes: StorageChanges) -> [Section] {
        var sections: [Section] = []
        for (kind, objects) in [(Kind.inserted, changes.inserted), (.updated, changes.updated), (.deleted, changes.deleted)]
        where !objects.isEmpty {
            // Runs of one entity are the rule: compare with the last name before searching.
            var names: [String] = []
            var ids: [[Int64]] = []
            var current = -1
            for object in objects {
                if current < 0 || names[current] != object.entityName {
                    if let found = names.firstIndex(of: object.entityName) {
                        current = found
                    } else {
                        names.append(object.entityName)
                        ids.append([])
                        current = names.count - 1
                    }
                }
                ids[current].append(object.rowID)
            }
            for index in names.indices.sorted(by: { names[$0] < names[$1] }) {
                sections.append(Section(kind: kind, entity: names[index], rows: pack(&ids[index])))
            }
        }
        for entity in changes.resetEntities.sorted() {
            sections.append(Section(kind: .reset, entity: entity, rows: Data()))
        }
        return sections
    }

    /// `sections` as one entry: the ``format`` byte, then per section its kind (one byte), its entity's
    /// name and its packed rows, each a LEB128 length and the bytes.
    static func encode(_ sections: [Section]) -> Data {
        var bytes: [UInt8] = [format]
        for section in sections {
            bytes.append(section.kind.rawValue)
            let name = Array(section.entity.utf8)
            appendVarint(UInt64(name.count), to: &bytes)
            bytes += name
            appendVarint(UInt64(section.rows.count), to: &bytes)
            bytes += section.rows
        }
        return Data(bytes)
    }

    /// The sections of an entry ``encode(_:)`` wrote; `nil` for bytes it does not write.
    static func decode(_ data: Data) -> [Section]? {
        guard data.first == format else { return nil }
        var sections: [Section] = []
        var offset = data.startIndex + 1
        func bytes(_ count: UInt64) -> Data? {
            guard count <= UInt64(data.endIndex - offset) else { return nil }
            defer { offset += Int(count) }
            return data[offset..<(offset + Int(count))]
        }
        while offset < data.endIndex {
            guard let kind = Kind(rawValue: data[offset]) else { return nil }
            offset += 1
            guard let nameLength = readVarint(data, &offset), let name = bytes(nameLength),
                  let entity = String(data: name, encoding: .utf8),
                  let rowsLength = readVarint(data, &offset), let rows = bytes(rowsLength) else { return nil }
            sections.append(Section(kind: kind, entity: entity, rows: Data(rows)))
        }
        return sections
    }

    // MARK: Packing row ids

    /// Row ids (distinct, any order; sorted in place) as runs of consecutive ids, each a pair of
    /// unsigned LEB128 numbers: how far the run starts after the previous one's end, as an unsigned
    /// distance (the first: its first id, zigzag-encoded), and its length less one.
    static func pack(_ ids: inout [Int64]) -> Data {
        guard let first = ids.first else { return Data() }
        var low = first, high = first
        for id in ids {
            low = min(low, id)
            high = max(high, id)
        }
        var bytes: [UInt8] = []
        // One run (a commit's inserts): no sort needed.
        let (span, overflow) = high.subtractingReportingOverflow(low)
        if !overflow && span == Int64(ids.count - 1) {
            appendVarint(zigzag(low), to: &bytes)
            appendVarint(UInt64(ids.count - 1), to: &bytes)
            return Data(bytes)
        }
        ids.sort()
        bytes.reserveCapacity(ids.count * 2)
        var index = 0
        var previousEnd: Int64 = 0
        while index < ids.count {
            let start = ids[index]
            var end = start
            while index + 1 < ids.count && ids[index + 1] == end &+ 1 {
                end += 1
                index += 1
            }
            if bytes.isEmpty {
                appendVarint(zigzag(start), to: &bytes)
            } else {
                appendVarint(UInt64(bitPattern: start &- previousEnd), to: &bytes)
            }
            appendVarint(UInt64(bitPattern: end &- start), to: &bytes)
            previousEnd = end
            index += 1
        }
        return Data(bytes)
    }

    /// The most ids ``unpack(_:)`` makes of one blob: more is no entry ManagedStorage wrote.
    static let unpackLimit = 1 << 25

    /// The row ids of ``pack(_:)``, ascending; `nil` for bytes it does not make, or that stand for more
    /// than `limit` ids.
    static func unpack(_ data: Data, limit: Int = unpackLimit) -> [Int64]? {
        var ids: [Int64] = []
        var offset = data.startIndex
        var previousEnd: Int64 = 0
        while offset < data.endIndex {
            guard let startCode = readVarint(data, &offset), let lengthCode = readVarint(data, &offset) else { return nil }
            let start: Int64
            if ids.isEmpty {
                start = Int64(bitPattern: startCode >> 1) ^ -Int64(bitPattern: startCode & 1)
            } else {
                // Runs are apart by at least one id that is in neither; the distance is unsigned
                // (from Int64.min to Int64.max does not fit an Int64).
                guard startCode >= 2, startCode <= UInt64(bitPattern: Int64.max &- previousEnd) else { return nil }
                start = previousEnd &+ Int64(bitPattern: startCode)
            }
            guard lengthCode < UInt64(max(0, limit - ids.count)) else { return nil }
            let (end, overflow) = start.addingReportingOverflow(Int64(lengthCode))
            guard !overflow else { return nil }
            ids.append(contentsOf: start...end)
            previousEnd = end
        }
        return ids
    }

    private static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func readVarint(_ data: Data, _ offset: inout Data.Index) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < data.endIndex {
            let byte = data[offset]
            offset += 1
            guard shift < 64 else { return nil }
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
