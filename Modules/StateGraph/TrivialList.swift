/// A growable list of trivial values (unmanaged references, plain structs) in memory its owner
/// frees with `deallocate()`.
///
/// The graph's hot paths walk and append to these lists on every write and evaluation: unlike an
/// `Array`, reading one retains no buffer, appending checks no uniqueness, and a copy of the struct
/// is a view of the same memory (so only its owner, under the owner's lock, changes it).
@usableFromInline
struct TrivialList<Element> {
    @usableFromInline var base: UnsafeMutablePointer<Element>?
    @usableFromInline var count = 0
    @usableFromInline var capacity = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable
    subscript(index: Int) -> Element {
        base.unsafelyUnwrapped[index]
    }

    @inlinable
    mutating func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        base.unsafelyUnwrapped.advanced(by: count).initialize(to: element)
        count += 1
    }

    @inlinable
    mutating func append(contentsOf other: TrivialList<Element>) {
        guard other.count > 0 else { return }
        if count + other.count > capacity { grow(to: count + other.count) }
        base.unsafelyUnwrapped.advanced(by: count).initialize(from: other.base.unsafelyUnwrapped, count: other.count)
        count += other.count
    }

    @inlinable
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return base.unsafelyUnwrapped[count]
    }

    @inlinable
    mutating func removeLast() {
        count -= 1
    }

    /// Removes the element at `index` by moving the last one into its place (order is not kept).
    @inlinable
    mutating func swapRemove(at index: Int) {
        count -= 1
        if index != count { base.unsafelyUnwrapped[index] = base.unsafelyUnwrapped[count] }
    }

    @inlinable
    mutating func removeAll() {
        count = 0
    }

    @usableFromInline
    mutating func grow(to minimum: Int) {
        let newCapacity = Swift.max(minimum, capacity * 2, 4)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }

    /// Frees the memory (the elements are trivial: nothing to deinitialize). The list is empty after.
    @usableFromInline
    mutating func deallocate() {
        base?.deallocate()
        base = nil
        count = 0
        capacity = 0
    }
}
