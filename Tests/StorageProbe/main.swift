// storage-probe: a child process for FileStorageKit's crash, contention and fault tests (being written).
import FileStorageKit
print("storage-probe")
