import Foundation

/// The `camlib` executable built beside the test bundle.
public enum Camlib {
    public static let path: String = {
        let here = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let besideTests = here.deletingLastPathComponent().appendingPathComponent("camlib").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return Media.packageRoot.appendingPathComponent(".build/debug/camlib").path
    }()

    /// Runs camlib with `arguments` and returns its status and output.
    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessResult {
        try TestSupport.run(path, arguments, environment: environment)
    }
}
