// Why ci/sanitizers/tsan.supp exists: ThreadSanitizer cannot see Synchronization.Mutex's
// happens-before on Linux once the lock is contended. Build and run:
//   swiftc -parse-as-library -sanitize=thread -g ci/sanitizers/MutexUnderTSan.swift -o /tmp/mutex-tsan
//   /tmp/mutex-tsan mutex     # "Swift access race" reports on a trivially correct program
//   /tmp/mutex-tsan pthread   # the same program on a pthread mutex: no report
import Foundation
import Synchronization

final class PthreadLocked<Value>: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var value: Value
    init(_ value: Value) { self.value = value; pthread_mutex_init(&mutex, nil) }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(&mutex); defer { pthread_mutex_unlock(&mutex) }
        return body(&value)
    }
}

enum Shared {
    static let mutex = Mutex<Set<Int>>([])
    static let pthread = PthreadLocked<Set<Int>>([])
}

@main struct MutexUnderTSan {
    static func main() async {
        let usePthread = CommandLine.arguments.dropFirst().first == "pthread"
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for i in 0..<5_000 {
                        let key = task * 100_000 + i
                        if usePthread {
                            Shared.pthread.withLock { _ = $0.insert(key) }
                            Shared.pthread.withLock { _ = $0.remove(key) }
                        } else {
                            Shared.mutex.withLock { _ = $0.insert(key) }
                            Shared.mutex.withLock { _ = $0.remove(key) }
                        }
                    }
                }
            }
        }
        print(usePthread ? "pthread: done" : "mutex: done")
    }
}
