import Foundation
import Library

extension AnalysisWorkers {
    /// Analysis workers that run this program (`camlib analyze-worker`).
    convenience init(prestart: Int = 0, keeps: Bool = false) {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        self.init(executable: executable, prestart: prestart, keeps: keeps)
    }
}
