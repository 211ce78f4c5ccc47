import Foundation

/// A path as Linux keeps it: bytes, which need not be UTF-8. A name written on a Windows
/// machine or by an old camera (Latin-1, Windows-1252) reaches a Swift `String` with
/// U+FFFD in place of its bytes, and no file has that name. camlib reads such paths as
/// bytes (from a folder's listing or the command line) and opens the file through a
/// stand-in with a UTF-8 name (``StandInNames``).
struct RawPath: Hashable, Comparable, Sendable {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }
    init(_ string: String) { bytes = Array(string.utf8) }

    /// The path as a `String`, when it is UTF-8 (the only paths a `String` can name).
    var string: String? { String(validating: bytes, as: UTF8.self) }

    /// The path as people read it: each component that is UTF-8 as it is, any other read
    /// as Windows-1252 (what FAT cards and ZIP files made on Windows hold; every byte
    /// reads as one character, so two different names never read alike).
    var presented: String {
        components(of: bytes).map(Self.presented(name:)).joined(separator: "/")
    }

    /// One name, as ``presented`` reads it.
    static func presented(name: [UInt8]) -> String {
        if let text = String(validating: name, as: UTF8.self) { return text }
        var text = ""
        for byte in name {
            let scalar: UInt32 =
                switch byte {
                case 0x80...0x9F: windows1252[Int(byte - 0x80)]
                default: UInt32(byte)  // ASCII, and Latin-1 from 0xA0
                }
            text.unicodeScalars.append(Unicode.Scalar(scalar)!)
        }
        return text
    }

    /// One name with each byte that is not part of UTF-8 written as `\xE9`, as `ls -b` would.
    static func escaped(name: [UInt8]) -> String {
        var text = ""
        var rest = name[...]
        while !rest.isEmpty {
            // The longest prefix that is UTF-8, then one byte that is not.
            var end = rest.endIndex
            while end > rest.startIndex, String(validating: rest[rest.startIndex..<end], as: UTF8.self) == nil { end -= 1 }
            text += String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
            if end < rest.endIndex {
                text += "\\x" + String(rest[end], radix: 16, uppercase: true)
                rest = rest[(end + 1)...]
            } else {
                rest = []
            }
        }
        return text
    }

    /// Windows-1252's characters for 0x80–0x9F; its five unassigned bytes read as the
    /// Latin-1 control of the same number.
    private static let windows1252: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    private func components(of bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
    }

    /// The last component.
    var name: [UInt8] { Array(bytes.split(separator: UInt8(ascii: "/")).last ?? []) }

    /// The folder the path is in.
    var folder: RawPath {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return RawPath(".") }
        return RawPath(slash == 0 ? [UInt8(ascii: "/")] : Array(bytes[..<slash]))
    }

    func appending(_ name: [UInt8]) -> RawPath {
        RawPath(bytes.last == UInt8(ascii: "/") ? bytes + name : bytes + [UInt8(ascii: "/")] + name)
    }

    /// Absolute, without `.` and empty components and with `..` taken back (by the
    /// names alone, as `URL.standardized` does; symbolic links are not resolved).
    func absolute(from current: RawPath) -> RawPath {
        let whole = bytes.first == UInt8(ascii: "/") ? bytes : current.bytes + [UInt8(ascii: "/")] + bytes
        var kept: [[UInt8]] = []
        for part in components(of: whole) {
            switch part {
            case [], [UInt8(ascii: ".")]: continue
            case [UInt8(ascii: "."), UInt8(ascii: ".")]: _ = kept.popLast()
            default: kept.append(part)
            }
        }
        return RawPath([UInt8(ascii: "/")] + Array(kept.joined(separator: [UInt8(ascii: "/")])))
    }

    /// Calls `body` with the path as a C string.
    func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (bytes + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The working folder, as bytes.
    static var current: RawPath {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return RawPath(FileManager.default.currentDirectoryPath) }
        return RawPath(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// The bytes of the command-line argument that Swift gave as `argument`, when they are
    /// not UTF-8 (Swift replaced them with U+FFFD); nil for a UTF-8 argument, or when no
    /// argument reads as `argument`.
    static func commandLine(_ argument: String) -> RawPath? {
        guard argument.unicodeScalars.contains("\u{FFFD}") else { return nil }
        for i in 0..<Int(CommandLine.argc) {
            guard let pointer = CommandLine.unsafeArgv[i] else { continue }
            let bytes = Array(UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
            if String(validating: bytes, as: UTF8.self) == nil, String(decoding: bytes, as: UTF8.self) == argument {
                return RawPath(bytes)
            }
        }
        return nil
    }

    /// A path as the user gave it: its bytes from the command line when Swift could not
    /// keep them, a leading `~` expanded.
    static func given(_ argument: String) -> RawPath {
        commandLine(argument) ?? RawPath(argument.hasPrefix("~") ? (argument as NSString).expandingTildeInPath : argument)
    }

    static func < (a: RawPath, b: RawPath) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}
