internal import CZlib
import Foundation

/// A ZIP archive written as a stream (PKWARE's APPNOTE 6.3.10): every file stored as it
/// is (photos and movies are compressed already). A file whose CRC-32 is known beforehand
/// has it in its local header and is sent as it is; any other is followed by a data
/// descriptor with the CRC-32 computed as it was sent, so each file is read once. ZIP64
/// records are used where a size or an offset passes 4 GiB or the entries pass 65,535.
/// As the sizes are known, so is the archive's whole length before its first byte.
///
/// ```swift
/// var zip = ZipStream(entries: [.init(name: "IMG_1.HEIC", size: 2_402_114)])
/// send(zip.localHeader(0)); var crc = CRC32(); /* send the file's bytes, crc.update(...) */
/// if zip.needsDescriptor(0) { send(zip.dataDescriptor(0, crc: crc.value)) }
/// send(zip.end())
/// ```
public struct ZipStream: Sendable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var size: UInt64
        /// Shown as the file's time (local, as ZIP keeps it).
        public var modified: Date?
        /// The bytes' CRC-32 when known beforehand; nil: computed as they are sent and
        /// written in a data descriptor after them.
        public var crc32: UInt32?

        public init(name: String, size: UInt64, modified: Date? = nil, crc32: UInt32? = nil) {
            (self.name, self.size, self.modified, self.crc32) = (name, size, modified, crc32)
        }
    }

    public let entries: [Entry]
    /// Where each entry's local header starts.
    private let offsets: [UInt64]
    private var crcs: [UInt32]
    private let directoryOffset: UInt64
    /// The whole archive's length in bytes.
    public let length: UInt64

    private static let max32: UInt64 = 0xFFFF_FFFF

    public init(entries: [Entry]) {
        self.entries = entries
        var offsets: [UInt64] = []
        var at: UInt64 = 0
        for entry in entries {
            offsets.append(at)
            at += UInt64(Self.localHeaderLength(entry)) + entry.size + UInt64(Self.descriptorLength(entry))
        }
        self.offsets = offsets
        crcs = entries.map { $0.crc32 ?? 0 }
        directoryOffset = at
        var directory: UInt64 = 0
        for (entry, offset) in zip(entries, offsets) { directory += UInt64(Self.centralHeaderLength(entry, offset: offset)) }
        length = at + directory + UInt64(Self.endLength(entries: entries.count, directoryOffset: at, directorySize: directory))
    }

    // MARK: Parts, in the order they are sent

    /// The local header of entry `i`, sent before its bytes.
    public func localHeader(_ i: Int) -> [UInt8] {
        let entry = entries[i]
        let name = Array(entry.name.utf8)
        let big = entry.size >= Self.max32
        // Without a known CRC, it and the sizes follow the data (zeros here).
        let known = entry.crc32 != nil
        var out = ByteWriter()
        out.u32(0x0403_4b50)
        out.u16(big ? 45 : 20)  // version needed: 4.5 for ZIP64
        out.u16(Self.flags(entry))
        out.u16(0)  // stored
        let (time, date) = Self.dosTime(entry.modified)
        out.u16(time)
        out.u16(date)
        out.u32(entry.crc32 ?? 0)
        let size32 = big ? UInt32(Self.max32) : known ? UInt32(entry.size) : 0
        out.u32(size32)
        out.u32(size32)
        out.u16(UInt16(name.count))
        out.u16(big ? 20 : 0)
        out.bytes(name)
        if big {
            out.u16(0x0001)
            out.u16(16)
            out.u64(known ? entry.size : 0)
            out.u64(known ? entry.size : 0)
        }
        return out.data
    }

    /// Whether entry `i`'s bytes are followed by a data descriptor (its CRC-32 was not known).
    public func needsDescriptor(_ i: Int) -> Bool { entries[i].crc32 == nil }

    /// The data descriptor of entry `i`, sent after its bytes, with their CRC-32; only for
    /// an entry whose CRC-32 was not known (``needsDescriptor(_:)``).
    public mutating func dataDescriptor(_ i: Int, crc: UInt32) -> [UInt8] {
        precondition(needsDescriptor(i), "entry \(i)'s CRC-32 is in its local header")
        crcs[i] = crc
        let entry = entries[i]
        var out = ByteWriter()
        out.u32(0x0807_4b50)
        out.u32(crc)
        if entry.size >= Self.max32 {
            out.u64(entry.size)
            out.u64(entry.size)
        } else {
            out.u32(UInt32(entry.size))
            out.u32(UInt32(entry.size))
        }
        return out.data
    }

    /// The central directory and the end records, sent last.
    public func end() -> [UInt8] {
        var out = ByteWriter()
        for (i, entry) in entries.enumerated() {
            let name = Array(entry.name.utf8)
            let offset = offsets[i]
            var extra = ByteWriter()
            if entry.size >= Self.max32 {
                extra.u64(entry.size)
                extra.u64(entry.size)
            }
            if offset >= Self.max32 { extra.u64(offset) }
            let needs64 = !extra.data.isEmpty
            out.u32(0x0201_4b50)
            out.u16(0x031E)  // made by: Unix, 3.0
            out.u16(needs64 ? 45 : 20)
            out.u16(Self.flags(entry))
            out.u16(0)
            let (time, date) = Self.dosTime(entry.modified)
            out.u16(time)
            out.u16(date)
            out.u32(crcs[i])
            out.u32(UInt32(min(entry.size, Self.max32)))
            out.u32(UInt32(min(entry.size, Self.max32)))
            out.u16(UInt16(name.count))
            out.u16(needs64 ? UInt16(4 + extra.data.count) : 0)
            out.u16(0)  // comment
            out.u16(0)  // disk
            out.u16(0)  // internal attributes
            out.u32(UInt32(0o100644) << 16)  // a regular file, rw-r--r--
            out.u32(UInt32(min(offset, Self.max32)))
            out.bytes(name)
            if needs64 {
                out.u16(0x0001)
                out.u16(UInt16(extra.data.count))
                out.bytes(extra.data)
            }
        }
        let directorySize = UInt64(out.data.count)
        let count = UInt64(entries.count)
        if Self.needsZip64End(entries: entries.count, directoryOffset: directoryOffset, directorySize: directorySize) {
            let record = directoryOffset + directorySize
            out.u32(0x0606_4b50)
            out.u64(44)
            out.u16(0x031E)
            out.u16(45)
            out.u32(0)
            out.u32(0)
            out.u64(count)
            out.u64(count)
            out.u64(directorySize)
            out.u64(directoryOffset)
            out.u32(0x0706_4b50)
            out.u32(0)
            out.u64(record)
            out.u32(1)
        }
        out.u32(0x0605_4b50)
        out.u16(0)
        out.u16(0)
        out.u16(UInt16(min(count, 0xFFFF)))
        out.u16(UInt16(min(count, 0xFFFF)))
        out.u32(UInt32(min(directorySize, Self.max32)))
        out.u32(UInt32(min(directoryOffset, Self.max32)))
        out.u16(0)
        return out.data
    }

    // MARK: Lengths

    private static func localHeaderLength(_ entry: Entry) -> Int {
        30 + entry.name.utf8.count + (entry.size >= max32 ? 20 : 0)
    }

    private static func descriptorLength(_ entry: Entry) -> Int {
        entry.crc32 != nil ? 0 : entry.size >= max32 ? 24 : 16
    }

    /// Bit 3: the CRC and sizes follow the data; bit 11: the name is UTF-8.
    private static func flags(_ entry: Entry) -> UInt16 {
        entry.crc32 == nil ? 0x0808 : 0x0800
    }

    private static func centralHeaderLength(_ entry: Entry, offset: UInt64) -> Int {
        let extra = (entry.size >= max32 ? 16 : 0) + (offset >= max32 ? 8 : 0)
        return 46 + entry.name.utf8.count + (extra > 0 ? 4 + extra : 0)
    }

    private static func needsZip64End(entries: Int, directoryOffset: UInt64, directorySize: UInt64) -> Bool {
        entries >= 0xFFFF || directoryOffset >= max32 || directorySize >= max32
    }

    private static func endLength(entries: Int, directoryOffset: UInt64, directorySize: UInt64) -> Int {
        22 + (needsZip64End(entries: entries, directoryOffset: directoryOffset, directorySize: directorySize) ? 56 + 20 : 0)
    }

    /// MS-DOS time and date (2-second steps, 1980 to 2107), in this machine's time zone.
    static func dosTime(_ date: Date?) -> (UInt16, UInt16) {
        guard let date else { return (0, 0x21) }  // 1980-01-01
        let c = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((c.year ?? 1980) - 1980, 0), 127)
        let time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        let day = UInt16(year << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        return (time, day)
    }
}

/// A running CRC-32 (ZIP's, zlib's).
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var left = bytes.count
        var crc = UInt(value)
        while left > 0 {
            let n = min(left, Int(UInt32.max >> 1))
            crc = crc32(crc, base, UInt32(n))
            base += n
            left -= n
        }
        value = UInt32(truncatingIfNeeded: crc)
    }
}

/// Little-endian fields, appended.
private struct ByteWriter {
    var data: [UInt8] = []
    mutating func u16(_ v: UInt16) { data += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { data.append(UInt8((v >> (8 * i)) & 0xFF)) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { data.append(UInt8((v >> (8 * UInt64(i))) & 0xFF)) } }
    mutating func bytes(_ b: [UInt8]) { data += b }
}
