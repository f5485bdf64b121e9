// Dali's sample client, Dali/Shapes.swift at the repository's newest commit (a59311d, "Lazy
// working"): classes with no save(to:) of their own, saved by reflection, with `let identifier`.
// Kept as written except for these changes, each for the reason given:
//   1. `import Gloss` -> `import DocumentStore` (Gloss was Dali's JSON library; DocumentStore's
//      `JSON` and `<~~` take its place)
//   2. `NSUUID().UUIDString` -> `UUID().uuidString` (Swift 3 renamed Foundation's API)
//   3. `M_PI` -> `Double.pi` (Swift 3)
//   4. `let` in each `guard` clause (Swift 3: `guard let a = ..., let b = ...`)
// The file header comment is Dali's.
//
//  Shape.swift
//  Dali
//
//  Created by Aneel Nazareth on 4/2/16.
//  Copyright © 2016 Aneel Nazareth. All rights reserved.
//

import Foundation
import DocumentStore

class Shape : Persistable {
    class var kind: String { return "Shape" }
    let identifier = UUID().uuidString
    
    var area: Double {
        return 0.0
    }
    
    init() { print("Init Shape")  }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        print("Init Shape from JSON")
    }
}

class Square : Shape {
    override class var kind: String { return "Square" }
    
    let side: Double
    
    override var area: Double {
        return side * side
    }
    
    init(side: Double) {
        print("Init Square") 
        self.side = side
        super.init()
    }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        print("Init Square from JSON")
        guard let side: Double = "side" <~~ json else { return nil }
        self.side = side
        try super.init(with: json, from: persistence)
    }
}

class Circle : Shape {
    override class var kind: String { return "Circle" }
    
    let radius: Double
    
    override var area: Double {
        return Double.pi * radius * radius
    }
    
    init(radius: Double) {
        print("Init Circle")
        self.radius = radius
        super.init()
    }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        print("Init Circle from JSON")
        guard let radius: Double = "radius" <~~ json else { return nil }
        self.radius = radius
        try super.init(with: json, from: persistence)

    }
}

final class VennDiagram : Persistable {
    static let kind = "VennDiagram"
    let identifier = UUID().uuidString
    
    let left: Circle
    let right: Circle
    
    init(left: Circle, right: Circle) {
        self.left = left
        self.right = right
    }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        guard let left: Circle = try persistence.load("left" <~~ json),
            let right: Circle = try persistence.load("right" <~~ json)
            else { return nil }
        self.left = left
        self.right = right
    }
}

final class LazySquare : Persistable {
    static let kind = "LazySquare"
    let identifier = UUID().uuidString
    
    private weak var persistence: Persistence?
    private var squareIdentifier: String?
    lazy var square: Square? = try! self.persistence?.load(self.squareIdentifier)
    
    init(square: Square) {
        self.square = square
    }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        self.persistence = persistence
        self.squareIdentifier = "square" <~~ json
    }
    
    var propertyMapping: [String : String?] {
        var mapping = defaultPropertyMapping
        mapping.updateValue(nil, forKey: "persistence")
        mapping.updateValue(nil, forKey: "squareIdentifier")
        return mapping
    }
}

final class Chain : Persistable {
    static let kind = "Chain"
    let identifier = UUID().uuidString
    
    let link: Circle
    var next: Chain?
    
    init(link: Circle) {
        self.link = link
    }
    
    required init?(with json: JSON, from persistence: Persistence) throws {
        guard let link: Circle = try persistence.load("link" <~~ json)
            else { return nil }
        self.link = link
        self.next = try persistence.load("next" <~~ json)
    }
}



