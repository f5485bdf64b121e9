// Dali's sample client, Dali/Graph.swift at the repository's newest commit (a59311d): a graph whose
// nodes and edges save themselves by hand, through Gloss's `~~>` and `jsonify`. Kept as written
// except for these changes, each for the reason given:
//   1. `import Gloss` -> `import DocumentStore` (Gloss was Dali's JSON library; DocumentStore offers
//      its `<~~`, `~~>` and `jsonify`)
//   2. `NSUUID().UUIDString` -> `UUID().uuidString` (Swift 3 renamed Foundation's API)
//   3. `let` in each `guard` clause (Swift 3: `guard let a = ..., let b = ...`)
//   4. `try persistence.load($0) as Edge!` -> `(try persistence.load($0) as Edge?)!` (Swift 5 removed
//      implicitly unwrapped optionals as a type in casts; the force unwrap stays)
//   5. `addLabel("visited")`, `minDistance(destination)` -> `addLabel(label: "visited")`,
//      `minDistance(destination: destination)` (Swift 3 made the first argument label required)
// The file header comment is Dali's.
//
//  Graph.swift
//  Dali
//
//  Created by Aneel Nazareth on 4/10/16.
//  Copyright © 2016 Aneel Nazareth. All rights reserved.
//

import Foundation
import DocumentStore

final class Edge : Persistable {
    static let kind = "Edge"
    let identifier = UUID().uuidString
    
    let from: Node
    let to: Node
    let weight: Double
    
    init(from: Node, to: Node, weight: Double) {
        self.from = from
        self.to = to
        self.weight = weight
    }
    
    init?(with json: JSON, from persistence: Persistence) throws {
        guard let from: Node = try persistence.load("from" <~~ json),
            let to: Node = try persistence.load("to" <~~ json),
            let weight: Double = "weight" <~~ json
            else { return nil }
        self.from = from
        self.to = to
        self.weight = weight
    }
    
    func save(to: Persistence) throws {
        try to.save(self, json: [
            "from": from.identifier,
            "to": self.to.identifier,
            "weight": weight])
    }
}
extension Edge : Hashable, Equatable {
    var hashValue: Int { return identifier.hashValue }
}
func ==(lhs: Edge, rhs: Edge) -> Bool {
    return lhs.identifier == rhs.identifier
}


final class Node : Persistable {
    static let kind = "Node"
    let identifier = UUID().uuidString
    
    var labels = Set<String>()
    var outEdges = Set<Edge>()
    
    init() { }
    
    func addLabel(label: String) {
        labels.insert(label)
    }
    
    func connectTo(node: Node, weight: Double) {
        precondition(weight >= 0)
        let edge = Edge(from: self, to: node, weight: weight)
        outEdges.insert(edge)
    }
    
    init?(with json: JSON, from persistence: Persistence) throws {
        guard let labels: [String] = "labels" <~~ json,
            let outEdgeIdentifiers: [String] = "outEdges" <~~ json
            else { return nil }
        self.labels = Set<String>(labels)
        self.outEdges = Set<Edge>(try outEdgeIdentifiers.map { (try persistence.load($0) as Edge?)!})
    }
    
    func save(to: Persistence) throws {
        try to.save(self, json: jsonify([
            "labels" ~~> [String](self.labels),
            "outEdges" ~~> outEdges.map { $0.identifier }
            ])!)
    }
    
    func minDistance(destination: Node) -> Double? {
        addLabel(label: "visited")
        for edge in outEdges {
            if edge.to == destination {
                return edge.weight
            }
        }
        var minDistance: Double?
        for edge in outEdges {
            if !edge.to.labels.contains("visited"),
                let distance = edge.to.minDistance(destination: destination) {
                if let oldMin = minDistance {
                    minDistance = min(oldMin, distance)
                } else {
                    minDistance = distance
                }
            }
        }
        return minDistance
    }
}
extension Node : Equatable, Hashable {
    var hashValue: Int { return identifier.hashValue }
}
func ==(lhs: Node, rhs: Node) -> Bool {
    return lhs.identifier == rhs.identifier
}



