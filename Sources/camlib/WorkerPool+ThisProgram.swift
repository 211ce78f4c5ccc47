import Foundation
import Library

extension WorkerPool {
    /// A pool whose children run this program (`camlib worker --child`).
    convenience init(library: PhotoLibrary, options: Options) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        self.init(library: library, executable: executable, options: options)
    }
}
