import Foundation

/// A fresh temporary folder per test, removed when the value is released.
public final class ScratchDirectory: @unchecked Sendable {
    // Immutable after init; deinit only removes the folder.
    public let url: URL
    public var path: String { url.path }

    private let keep: Bool

    public init(_ label: String = "camlib-test", keep: Bool = false) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        self.keep = keep
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { if !keep { Self.remove(url) } }

    /// For a folder shared by many tests through a static (never deinitialised, and the
    /// test harness ends without running atexit handlers): named with this process's id,
    /// and every run removes the shared folders of test processes that no longer run.
    public static func shared(_ label: String) throws -> ScratchDirectory {
        let tmp = FileManager.default.temporaryDirectory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.path)) ?? [] where name.hasPrefix("camlib-shared-") {
            let pid = name.split(separator: "-").dropFirst(2).first.flatMap { Int32($0) } ?? 0
            if pid > 0, pid != getpid(), !FileManager.default.fileExists(atPath: "/proc/\(pid)") {
                remove(tmp.appendingPathComponent(name))
            }
        }
        return try ScratchDirectory("camlib-shared-\(getpid())-\(label)", keep: true)
    }

    static func remove(_ url: URL) {
        // Originals in a library are read-only; make them writable so the folder can go.
        if let e = FileManager.default.enumerator(atPath: url.path) {
            for case let p as String in e {
                try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.appendingPathComponent(p).path)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }

    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A new folder inside this one.
    public func subdirectory(_ name: String) throws -> URL {
        let dir = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }
}

/// How a program ended and what it printed.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    /// Killed by a signal (a crash, or SIGKILL), rather than exiting.
    public let signaled: Bool
}

/// Runs a program to completion and returns its exit status and output.
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil)
    throws -> ProcessResult
{
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    p.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    if let environment {
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    if let stdin {
        let input = Pipe()
        p.standardInput = input
        try p.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
    } else {
        p.standardInput = FileHandle.nullDevice
        try p.run()
    }
    // Read both pipes before waiting, so a chatty child cannot block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return ProcessResult(
        status: p.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self), signaled: p.terminationReason == .uncaughtSignal)
}

/// Whether a command-line tool is installed (exiftool, ffprobe, heif-info, sqlite3).
public func toolExists(_ name: String) -> Bool {
    (try? run("sh", ["-c", "command -v \(name)"]).status) == 0
}
