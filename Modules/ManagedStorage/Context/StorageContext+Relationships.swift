import Foundation

/// Deleting with delete rules, and keeping both ends of a relationship in step.
extension StorageContext {
    // MARK: Deleting

    /// Deletes `backing`, applying each relationship's delete rule; a `.deny` with related objects
    /// records ``StorageError/deleteDenied(entity:relationship:)`` and deletes nothing.
    func delete(_ backing: EntityBacking) {
        guard !backing.isDeleted else { return }
        let schema = backing.schema
        for (index, property) in schema.properties.enumerated() where property.relationship != nil && property.deleteRule == .deny {
            let hasRelated: Bool = switch property.kind {
            case .toMany: !toManyTargets(backing, index).isEmpty
            default: toOneTarget(backing, index) != nil
            }
            if hasRelated {
                record(.deleteDenied(entity: schema.name, relationship: property.name))
                return
            }
        }
        backing.isDeleted = true
        for (index, property) in schema.properties.enumerated() {
            guard property.relationship != nil else { continue }
            switch property.kind {
            case .toMany:
                let targets = toManyTargets(backing, index)
                for target in targets {
                    if property.deleteRule == .cascade { delete(target) }
                    else if let inverse = property.inverse { target.setToOne(inverse, nil) }
                }
            case .toOne:
                guard let target = toOneTarget(backing, index), !target.isDeleted else { continue }
                if property.deleteRule == .cascade {
                    delete(target)
                } else if let inverse = property.inverse, case .toOne = target.schema.properties[inverse].kind,
                          target.toOneTarget(inverse) === backing {
                    target.setToOne(inverse, nil)
                }
            case .attribute:
                break
            }
        }
        if backing.isInserted {
            backing.isNewInWriter = false
            inserted.removeAll { $0.backing === backing }
        } else {
            deleted.append(backing)
        }
    }

    private func toOneTarget(_ backing: EntityBacking, _ index: Int) -> EntityBacking? {
        backing.toOneTarget(index).flatMap { $0.isDeleted ? nil : $0 }
    }

    // MARK: Relationships

    /// The backings of the to-many `index` of `owner` (for the writer, which keeps its objects).
    func toManyTargets(_ owner: EntityBacking, _ index: Int) -> [EntityBacking] {
        toManyObjects(owner, index).compactMap { ($0 as? any StorageEntity)?._$backing }
    }

    /// The objects of the to-many `index` of `owner`: those whose inverse to-one points at it.
    func toManyObjects(_ owner: EntityBacking, _ index: Int) -> [AnyObject] {
        let property = owner.schema.properties[index]
        guard let target = property.target, let inverse = property.inverse else { return [] }
        if isWriter && owner.rowID < 0 { flush() }
        guard owner.rowID > 0 else { return [] }
        let condition = SQLFragment(sql: "\(SQL.quote(target.properties[inverse].name)) = ?", arguments: [.integer(owner.rowID)])
        return fetch(target, where: condition, orderBy: nil, limit: nil)
    }

    func setToOne(_ backing: EntityBacking, _ index: Int, _ target: EntityBacking?) {
        let property = backing.schema.properties[index]
        guard let inverse = property.inverse, let targetSchema = property.target,
              case .toOne = targetSchema.properties[inverse].kind else {
            return backing.setToOne(index, target)
        }
        // One-to-one: both ends are columns; keep them pointing at each other.
        let old = backing.toOneTarget(index)
        if old === target { return }
        if let old, old.toOneTarget(inverse) === backing { old.setToOne(inverse, nil) }
        if let target {
            if let previous = target.toOneTarget(inverse), previous !== backing, previous.toOneTarget(index) === target {
                previous.setToOne(index, nil)
            }
            target.setToOne(inverse, backing)
        }
        backing.setToOne(index, target)
    }

    func setToMany(_ owner: EntityBacking, _ index: Int, _ targets: [EntityBacking]) {
        let property = owner.schema.properties[index]
        guard let inverse = property.inverse else { return }
        for target in targets where target.context !== self {
            record(.objectNotInStorage("\(owner.schema.name).\(property.name) was given an object of another storage"))
            return
        }
        let keep = Set(targets.map(ObjectIdentifier.init))
        for current in toManyTargets(owner, index) where !keep.contains(ObjectIdentifier(current)) {
            current.setToOne(inverse, nil)
        }
        for target in targets { target.setToOne(inverse, owner) }
    }
}
