#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where threads sleep while another thread evaluates a node they want, and are woken when it ends.
///
/// One mutex and condition for the whole graph: a thread waits here only when two threads want the
/// same stale node at once, which is rare, so waking every waiter when one evaluation ends (each
/// checks its own node and sleeps again if it is still busy) costs little, and the evaluation
/// itself needs no lock of its own (see `ComputedCore`). A waiter marks the node (bit 2 of its
/// state) before it sleeps, and the evaluation wakes the sleepers only if it finds the mark, after
/// clearing it; the mutex makes a wake-up that comes between a waiter's check and its sleep
/// impossible.
@usableFromInline
enum GraphWaiters {
    nonisolated(unsafe) private static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        return mutex
    }()

    nonisolated(unsafe) private static let condition: UnsafeMutablePointer<pthread_cond_t> = {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        pthread_cond_init(condition, nil)
        return condition
    }()

    /// Sleeps while `busy()` holds (checked under the mutex, so no wake-up is missed).
    static func wait(while busy: () -> Bool) {
        pthread_mutex_lock(mutex)
        while busy() { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Wakes every waiter (an evaluation someone waited for ended).
    @usableFromInline
    static func wakeAll() {
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
