import Containers
import Foundation
import Testing
import TestSupport

/// ZIP archives made as a stream: what Python's zipfile and Info-ZIP's unzip read back,
/// the length announced before the first byte, and ZIP64 past 65,535 entries.
struct ZipStreamTests {
    /// The archive of `files`, made as the gallery sends it.
    static func archive(_ files: [(String, [UInt8])], modified: Date? = nil) -> [UInt8] {
        var zip = ZipStream(entries: files.map { ZipStream.Entry(name: $0.0, size: UInt64($0.1.count), modified: modified) })
        var out: [UInt8] = []
        for (i, file) in files.enumerated() {
            out += zip.localHeader(i)
            var crc = CRC32()
            // In pieces, as it is sent.
            for start in stride(from: 0, to: file.1.count, by: 7) {
                file.1[start..<min(file.1.count, start + 7)].withUnsafeBytes { crc.update($0) }
            }
            out += file.1
            out += zip.dataDescriptor(i, crc: crc.value)
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
        let archive = Self.archive(files, modified: taken)
        let read = try Self.readBack(archive, in: scratch)
        #expect(read.map(\.[0]) == files.map(\.0))
        #expect(read[1][1] == files[1].1.map { String(format: "%02x", $0) }.joined())
        #expect(read[2][1] == "-")
        #expect(read.allSatisfy { $0[2] == "2025-05-26T14:03:08" })
        let unzip = try run("/usr/bin/unzip", ["-t", scratch.file("test.zip")])
        #expect(unzip.status == 0 && unzip.stdout.contains("No errors detected"), "\(unzip.stdout)")
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
        var zip = ZipStream(entries: [.init(name: "a.mov", size: big), .init(name: "b.mov", size: 10), .init(name: "c.mov", size: big)])
        var total: UInt64 = 0
        for i in 0..<3 {
            let header = zip.localHeader(i)
            #expect(header.count == 30 + 5 + (i == 1 ? 0 : 20), "a large entry's local header carries a ZIP64 field")
            total += UInt64(header.count) + zip.entries[i].size + UInt64(zip.dataDescriptor(i, crc: 0).count)
        }
        let end = zip.end()
        #expect(total + UInt64(end.count) == zip.length)
        // b's and c's offsets pass 4 GiB: ZIP64 fields in their central headers, and the ZIP64 end records.
        #expect(end.count == 3 * (46 + 5) + (4 + 16) + (4 + 8) + (4 + 16 + 8) + 56 + 20 + 22)
    }
}
