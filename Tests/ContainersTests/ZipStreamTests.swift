import Containers
import Foundation
import Testing
import TestSupport

/// ZIP archives made as a stream: what Python's zipfile and Info-ZIP's unzip read back,
/// the length announced before the first byte, and ZIP64 past 65,535 entries.
struct ZipStreamTests {
    /// The archive of `files`, made as the gallery sends it; `known` says which files'
    /// CRC-32s are given beforehand (as the catalog records them), the rest are computed
    /// as they are sent.
    static func archive(_ files: [(String, [UInt8])], modified: Date? = nil, known: (Int) -> Bool = { _ in false }) -> [UInt8] {
        func crc(of bytes: [UInt8]) -> UInt32 {
            var crc = CRC32()
            // In pieces, as it is sent.
            for start in stride(from: 0, to: bytes.count, by: 7) {
                bytes[start..<min(bytes.count, start + 7)].withUnsafeBytes { crc.update($0) }
            }
            return crc.value
        }
        var zip = ZipStream(entries: files.enumerated().map { i, file in
            ZipStream.Entry(name: file.0, size: UInt64(file.1.count), modified: modified, crc32: known(i) ? crc(of: file.1) : nil)
        })
        var out: [UInt8] = []
        for (i, file) in files.enumerated() {
            out += zip.localHeader(i)
            out += file.1
            #expect(zip.needsDescriptor(i) == !known(i))
            if zip.needsDescriptor(i) { out += zip.dataDescriptor(i, crc: crc(of: file.1)) }
        }
        out += zip.end()
        #expect(UInt64(out.count) == zip.length, "the length announced is the length sent")
        return out
    }

    /// What Python's zipfile reads: each name, its CRC checked, its bytes as hex, its time.
    static func readBack(_ bytes: [UInt8], in scratch: ScratchDirectory) throws -> [[String]] {
        let path = scratch.file("test.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let script = """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i in z.infolist(): print(i.filename, z.read(i).hex() or "-", "%04d-%02d-%02dT%02d:%02d:%02d" % i.date_time, sep="\\t")
            """
        let result = try run("/usr/bin/python3", ["-c", script, path])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    }

    @Test func pythonAndUnzipReadItBackWithItsNamesTimesAndBytes() throws {
        let scratch = try ScratchDirectory()
        var components = DateComponents()
        (components.year, components.month, components.day, components.hour, components.minute, components.second) = (2025, 5, 26, 14, 3, 8)
        let taken = Calendar.current.date(from: components)!
        let files: [(String, [UInt8])] = [("IMG_4394.HEIC", Array("still".utf8)), ("IMG_4394.mov", Array(0...255)), ("Café 東京.jpg", []), ("IMG_E4394.HEIC", Array("edit".utf8))]
        // Without any CRC known, with every one, and with some (as a library that had some
        // files before migration 0023 has).
        for known: (Int) -> Bool in [{ _ in false }, { _ in true }, { $0 % 2 == 0 }] {
            let archive = Self.archive(files, modified: taken, known: known)
            let read = try Self.readBack(archive, in: scratch)
            #expect(read.map(\.[0]) == files.map(\.0))
            #expect(read[1][1] == files[1].1.map { String(format: "%02x", $0) }.joined())
            #expect(read[2][1] == "-")
            #expect(read.allSatisfy { $0[2] == "2025-05-26T14:03:08" })
            let unzip = try run("/usr/bin/unzip", ["-t", scratch.file("test.zip")])
            #expect(unzip.status == 0 && unzip.stdout.contains("No errors detected"), "\(unzip.stdout)")
        }
    }

    @Test func aFileWhoseBytesNoLongerMatchTheCRCRecordedIsCaughtByTheReader() throws {
        // A file damaged on disk since the catalog recorded its CRC-32: sent as it is, the
        // archive's reader says which file is wrong rather than handing it over silently.
        let scratch = try ScratchDirectory()
        let good = Array("the bytes recorded".utf8)
        var zip = ZipStream(entries: [.init(name: "IMG_1.HEIC", size: UInt64(good.count), crc32: good.withUnsafeBytes { var c = CRC32(); c.update($0); return c.value })])
        var damaged = good
        damaged[3] ^= 0x20
        let archive = zip.localHeader(0) + damaged + zip.end()
        #expect(UInt64(archive.count) == zip.length)
        try Data(archive).write(to: URL(fileURLWithPath: scratch.file("test.zip")))
        let unzip = try run("/usr/bin/unzip", ["-t", scratch.file("test.zip")])
        #expect(unzip.status != 0 && unzip.stdout.contains("IMG_1.HEIC") && unzip.stdout.lowercased().contains("crc"), "\(unzip.stdout)")
    }

    @Test func moreThan65535EntriesUseZip64EndRecords() throws {
        let scratch = try ScratchDirectory()
        let files = (0..<70_000).map { ("f\($0)", [UInt8(truncatingIfNeeded: $0)]) }
        let read = try Self.readBack(Self.archive(files), in: scratch)
        #expect(read.count == 70_000 && read.last?[0] == "f69999" && read.last?[1] == "6f")
    }

    @Test func filesOf4GiBAndMoreGetZip64SizesAndTheLengthStillAddsUp() {
        // Headers only: the layout of entries too large to make in a test.
        let big = UInt64(5) << 30
        // c's CRC-32 is known: its local header has its sizes, and no descriptor follows.
        var zip = ZipStream(entries: [.init(name: "a.mov", size: big), .init(name: "b.mov", size: 10), .init(name: "c.mov", size: big, crc32: 7)])
        var total: UInt64 = 0
        for i in 0..<3 {
            let header = zip.localHeader(i)
            #expect(header.count == 30 + 5 + (i == 1 ? 0 : 20), "a large entry's local header carries a ZIP64 field")
            total += UInt64(header.count) + zip.entries[i].size
            if zip.needsDescriptor(i) { total += UInt64(zip.dataDescriptor(i, crc: 0).count) }
        }
        let littleEndian = (0..<8).map { UInt8((big >> (8 * UInt64($0))) & 0xFF) }
        #expect(Array(zip.localHeader(2).suffix(16)) == littleEndian + littleEndian, "the ZIP64 field holds c's sizes")
        #expect(Array(zip.localHeader(0).suffix(16)) == [UInt8](repeating: 0, count: 16), "a's sizes follow its bytes")
        let end = zip.end()
        #expect(total + UInt64(end.count) == zip.length)
        // b's and c's offsets pass 4 GiB: ZIP64 fields in their central headers, and the ZIP64 end records.
        #expect(end.count == 3 * (46 + 5) + (4 + 16) + (4 + 8) + (4 + 16 + 8) + 56 + 20 + 22)
    }
}
