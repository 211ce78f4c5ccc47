import Foundation

/// A file or folder camlib was told to use and cannot, said as a person would: the path
/// and the cause ("/tmp/out: a file is there; --to needs a folder"), never Foundation's
/// `NSCocoaErrorDomain … Code=516` dump.
public struct FileAccessError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let cause: String

    public init(path: String, cause: String) {
        (self.path, self.cause) = (path, cause)
    }

    public var description: String { "\(path): \(cause)" }

    /// Makes `folder` and its parents unless it is a folder already. `purpose` says who
    /// wants it ("--to", "the library"), for the error when a file is in the way.
    public static func makeFolder(_ folder: URL, for purpose: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw FileAccessError(path: folder.path, cause: "a file is there; \(purpose) needs a folder") }
            return
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw from(error) ?? error
        }
    }

    /// Reads a file the user named (`--from`), saying plainly why it cannot be read.
    public static func contents(of path: String) throws -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw from(error) ?? error
        }
    }

    /// Foundation's file errors (Cocoa's with a path, or POSIX ones) in words; nil for any
    /// other error.
    public static func from(_ error: Error) -> FileAccessError? {
        if let problem = error as? FileAccessError { return problem }
        let ns = error as NSError
        guard ns.domain == NSCocoaErrorDomain || ns.domain == NSPOSIXErrorDomain else { return nil }
        guard let path = ns.userInfo[NSFilePathErrorKey] as? String ?? (ns.userInfo[NSURLErrorKey] as? URL)?.path else { return nil }
        return FileAccessError(path: path, cause: errno(of: error).map { cause(errno: $0) } ?? ns.localizedDescription)
    }

    /// The system's error number behind Foundation's file error: its own (POSIX), the one
    /// it wraps, or the one its Cocoa code stands for; nil when there is none.
    static func errno(of error: Error) -> Int32? {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        guard ns.domain == NSCocoaErrorDomain else { return nil }
        // Wrapped as NSError or as a Swift error, depending on who made it.
        if let underlying = (ns.userInfo[NSUnderlyingErrorKey] as? any Error).map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        switch ns.code {
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return ENOENT
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return EACCES
        case NSFileWriteFileExistsError: return EEXIST
        case NSFileWriteOutOfSpaceError: return ENOSPC
        case NSFileWriteVolumeReadOnlyError: return EROFS
        default: return nil
        }
    }

    static func cause(errno code: Int32) -> String {
        switch code {
        case ENOENT: "no such file or folder"
        case EEXIST: "something is there already"
        case ENOTDIR: "a part of the path is a file, not a folder"
        case EISDIR: "a folder, not a file"
        case EACCES, EPERM: "permission denied"
        case EROFS: "on read-only storage"
        case ENOSPC: "no space left on the device"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}
