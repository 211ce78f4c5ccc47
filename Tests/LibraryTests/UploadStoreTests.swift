import Foundation
import Testing
import TestSupport

@testable import Library

/// Where uploads wait until whole: names made safe, files of a batch side by side,
/// space checked before a byte is taken, and what is abandoned swept away.
struct UploadStoreTests {
    static func store(maxFileSize: Int64 = 1 << 30) throws -> (UploadStore, ScratchDirectory) {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"))
        return (UploadStore(library: library, maxFileSize: maxFileSize), scratch)
    }

    @Test func browsersNamesBecomeNamesInAFolder() {
        #expect(UploadStore.safeName("IMG_0001.HEIC") == "IMG_0001.HEIC")
        #expect(UploadStore.safeName("DCIM/100APPLE/IMG_0002.JPG") == "IMG_0002.JPG")
        #expect(UploadStore.safeName("..\\..\\evil.jpg") == "evil.jpg")
        #expect(UploadStore.safeName("..") == "upload")
        #expect(UploadStore.safeName("a\u{0}b\nc.jpg") == "abc.jpg")
        let long = UploadStore.safeName(String(repeating: "x", count: 300) + ".heic")
        #expect(long.utf8.count <= 200 && long.hasSuffix(".heic"))
        #expect(UploadStore.safeBatch("b1-x_2") == "b1-x_2" && UploadStore.safeBatch("../x") == nil)
    }

    @Test func twoFilesOfOneNameInABatchKeepTheirNamesInFoldersOfTheirOwn() throws {
        let (store, _) = try Self.store()
        var files: [URL] = []
        for text in ["first", "second"] {
            let upload = try store.create(name: "IMG_0001.JPG", length: Int64(text.utf8.count), batch: "b")
            try store.append(upload.id, at: 0, Array(text.utf8))
            files.append(try #require(try store.wholeFile(upload.id)))
        }
        #expect(files[0].lastPathComponent == "IMG_0001.JPG" && files[1].lastPathComponent == "IMG_0001.JPG")
        #expect(files[0].deletingLastPathComponent().lastPathComponent == "batch-b")
        #expect(files[1].deletingLastPathComponent().deletingLastPathComponent().lastPathComponent == "batch-b")
        #expect(try String(contentsOf: files[1], encoding: .utf8) == "second")
    }

    @Test func aFileThatCannotFitIsRefusedBeforeAByteIsTaken() throws {
        let (store, scratch) = try Self.store(maxFileSize: Int64.max / 4)
        let free = try UploadStore.freeBytes(at: scratch.url)
        #expect(throws: UploadError.self) { try store.create(name: "big.mov", length: free, batch: nil) }
        do {
            _ = try store.create(name: "big.mov", length: free, batch: nil)
        } catch let error as UploadError {
            #expect(error.description.contains("big.mov") && error.description.contains("does not fit"))
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: store.folder.path)) ?? []).isEmpty)
    }

    @Test func abandonedUploadsAndHalfImportsAreSweptAndFreshOnesKept() throws {
        let (store, _) = try Self.store()
        let fresh = try store.create(name: "a.jpg", length: 4, batch: "b")
        let old = try store.create(name: "b.jpg", length: 4, batch: "b")
        try store.append(old.id, at: 0, [1, 2])
        let whole = try store.create(name: "c.jpg", length: 1, batch: "b")
        try store.append(whole.id, at: 0, [9])
        _ = try #require(try store.wholeFile(whole.id))  // linked for an import that never ended
        let dayAgo = Date().addingTimeInterval(-UploadStore.abandonedAfter - 60)
        for suffix in ["part", "json"] {
            try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: store.folder.appendingPathComponent("\(old.id).\(suffix)").path)
        }
        #expect(store.sweep() == 1)
        #expect(try store.upload(fresh.id) != nil && (try store.upload(old.id)) == nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: store.folder.path).sorted()
        #expect(!left.contains { $0.hasPrefix("batch-") }, "\(left)")
        // The whole one stays, to be imported when asked for again.
        #expect(try store.offset(whole.id) == 1 && (try store.wholeFile(whole.id)) != nil)
    }
}
