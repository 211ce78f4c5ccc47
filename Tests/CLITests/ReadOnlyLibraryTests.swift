import Foundation
import GRDB
import Testing
import TestSupport

/// A library on storage nobody may write (a backup disk, a read-only NAS share): camlib
/// runs inside a private mount namespace (`unshare -m`) where a copy of a library is
/// bind-mounted read-only, so the kernel refuses every write, root's too.
@Suite(
    .enabled(if: Media.shouldRun, Media.skipMessage),
    .enabled(if: ReadOnlyMount.isPossible || Media.isRequired, "skipped: this account cannot make a read-only mount (unshare -m)"))
struct ReadOnlyLibraryTests {
    final class Fixture: Sendable {
        let scratch: ScratchDirectory
        /// Kept open so that its change stays in the write-ahead log.
        nonisolated(unsafe) private var pending: DatabaseQueue?
        var writable: String { scratch.file("lib") }
        var copy: String { scratch.file("copy") }
        var mountPoint: String { scratch.file("mnt") }

        /// How the catalog files of the copy were left.
        enum Journal: String, CaseIterable, Sendable {
            /// As camlib left them: the catalog with its -wal and -shm.
            case asLeft
            /// Closed cleanly: everything written into the catalog, no -wal or -shm.
            case checkpointed
            /// A -wal without its -shm index (copied without it).
            case walWithoutIndex
        }

        init(_ journal: Journal = .asLeft) throws {
            scratch = try ScratchDirectory()
            let result = try Camlib.run(["import", "--library", scratch.file("lib"), Media.path("apple-live-photo"), Media.path("apple-portrait-heic/pug.heic")])
            guard result.status == 0 else { throw MissingMedia(path: "import failed: \(result.stderr)") }
            try run("cp", ["-a", writable, copy])
            let catalog = copy + "/catalog.sqlite"
            switch journal {
            case .asLeft: break
            case .checkpointed:
                let checkpoint = try run("sqlite3", [catalog, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE; PRAGMA journal_mode = WAL;"])
                guard checkpoint.status == 0 else { throw MissingMedia(path: "sqlite3 failed: \(checkpoint.stderr)") }
                try? FileManager.default.removeItem(atPath: catalog + "-wal")
                try? FileManager.default.removeItem(atPath: catalog + "-shm")
            case .walWithoutIndex:
                // A change still in the log, as a copy made while camlib was writing holds it.
                let writer = try DatabaseQueue(path: catalog)
                try writer.write { db in try db.execute(sql: "INSERT INTO preference VALUES ('test.pending', 'x', 'now')") }
                pending = writer
                try FileManager.default.removeItem(atPath: catalog + "-shm")
            }
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        }

        /// camlib with `arguments` (LIB standing for the library) on the read-only copy.
        func camlib(_ arguments: [String]) throws -> ProcessResult {
            let args = arguments.map { $0 == "LIB" ? mountPoint : $0 }
            return try run(
                "unshare",
                ["-m", "sh", "-c", "mount --bind \"$1\" \"$2\" && mount -o remount,bind,ro \"$2\" && shift 2 && exec \"$@\"", "sh", copy, mountPoint,
                 Camlib.path] + args)
        }

        /// The same command on the writable library, for comparison.
        func camlibWritable(_ arguments: [String]) throws -> ProcessResult {
            try Camlib.run(arguments.map { $0 == "LIB" ? writable : $0 })
        }
    }

    @Test(arguments: [Fixture.Journal.asLeft, .checkpointed])
    func aReadOnlyLibraryAnswersQueriesShowsAndExtractsAndExports(journal: Fixture.Journal) throws {
        let f = try Fixture(journal)
        let files = try FileManager.default.contentsOfDirectory(atPath: f.copy)
        #expect(files.contains("catalog.sqlite-wal") == (journal == .asLeft), "\(files)")
        let untouched = try Self.snapshot(f.copy)
        // The mount really is read-only.
        let touch = try run("unshare", ["-m", "sh", "-c", "mount --bind \"$1\" \"$2\" && mount -o remount,bind,ro \"$2\" && touch \"$2/x\"", "sh", f.copy, f.mountPoint])
        #expect(touch.status != 0 && touch.stderr.contains("Read-only file system"))

        for arguments in [["query", "--library", "LIB", "--json"], ["query", "--library", "LIB", "--has", "depth", "--csv"], ["query", "--library", "LIB", "--limit", "2"]] {
            let ro = try f.camlib(arguments)
            let rw = try f.camlibWritable(arguments)
            #expect(ro.status == 0, "\(arguments): \(ro.stderr)")
            #expect(ro.stdout.replacingOccurrences(of: f.mountPoint, with: f.writable) == rw.stdout, "\(arguments)")
        }
        let show = try f.camlib(["show", "--library", "LIB", "--json", Media.path("apple-live-photo/IMG_3582.mov")])
        #expect(show.status == 0 && show.stdout.contains("\"stillImageTime\""), "\(show.stderr)")

        let out = try f.scratch.subdirectory("out")
        let list = try f.camlib(["aux", "list", "--library", "LIB", Media.path("apple-portrait-heic/pug.heic")])
        #expect(list.status == 0 && list.stdout.contains("disparity"), "\(list.stderr)")
        let extract = try f.camlib(["aux", "extract", "--library", "LIB", Media.path("apple-portrait-heic/pug.heic"), "--out", out.appendingPathComponent("aux").path])
        #expect(extract.status == 0, "\(extract.stderr)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("aux/disparity.png").path))
        let export = try f.camlib(["export", "--library", "LIB", "--query", "--kind", "live", "--to", out.appendingPathComponent("export").path])
        #expect(export.status == 0 && export.stdout.contains("Exported 3 of 3 assets"), "\(export.stderr)")

        // Nothing in the library changed, and nothing was added.
        #expect(try Self.snapshot(f.copy) == untouched)
    }

    /// Every file under `folder` with its size and modification time.
    static func snapshot(_ folder: String) throws -> [String: [Int]] {
        var files: [String: [Int]] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + path)
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files[path] = [(attributes[.size] as? Int) ?? -1, Int(modified * 1000)]
        }
        return files
    }

    /// What camlib writes is in catalog.sqlite when it exits: a backup of that file alone
    /// holds the whole catalog (the -wal file is left empty).
    @Test func camlibLeavesTheWholeCatalogInItsFile() throws {
        let f = try Fixture()
        let catalog = f.copy + "/catalog.sqlite"
        let wal = try FileManager.default.attributesOfItem(atPath: catalog + "-wal")[.size] as? Int
        #expect(wal == 0)
        let alone = try run("sqlite3", ["file:\(catalog)?immutable=1", "SELECT count(*) FROM asset"])
        #expect(alone.stdout == "4\n", "\(alone.stdout) \(alone.stderr)")
    }

    @Test func aWriteAheadLogWithoutItsIndexIsReadWithoutItAndSaidSo() throws {
        let f = try Fixture(.walWithoutIndex)
        let result = try f.camlib(["query", "--library", "LIB", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("catalog.sqlite-wal holds changes that were never written into the catalog"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("["))
    }

    /// A dry run writes nothing, so a read-only library can have one.
    @Test func dryRunsWorkOnAReadOnlyLibrary() throws {
        let f = try Fixture()
        let untouched = try Self.snapshot(f.copy)
        let imported = try f.camlib(["import", "--dry-run", "--library", "LIB", Media.path("orientation/Landscape_1.jpg")])
        #expect(imported.status == 0 && imported.stdout.contains("Would import 1 of 1 files"), "\(imported.stdout) \(imported.stderr)")
        let repaired = try f.camlib(["repair", "--dry-run", "--library", "LIB"])
        #expect(repaired.status == 0, "\(repaired.stdout) \(repaired.stderr)")
        #expect(try Self.snapshot(f.copy) == untouched)
    }

    @Test func writingCommandsSayTheLibraryIsReadOnly() throws {
        let f = try Fixture()
        let commands = [
            ["import", "--library", "LIB", Media.path("orientation/Landscape_1.jpg")],
            ["edit", "--library", "LIB", "1", "--filter", "noir"],
            ["revert", "--library", "LIB", "1"],
            // pug.heic, asset 4 (a file outside the library would be changed as that file).
            ["aux", "attach", "--library", "LIB", "4", "--type", "portrait-matte", "--from", "/nonexistent.png"],
        ]
        for arguments in commands {
            let result = try f.camlib(arguments)
            #expect(result.status == 1, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("the library at \(f.mountPoint) is read-only"), "\(arguments): \(result.stderr)")
        }
    }
}

extension ReadOnlyLibraryTests {
    /// `camlib serve` on a read-only library: it is shown (previews made in the user's
    /// cache folder, not in the library), and an edit or revert is refused, saying why.
    @Test func serveShowsAReadOnlyLibraryAndRefusesChanges() throws {
        let f = try Fixture()
        let untouched = try Self.snapshot(f.copy)
        let cache = try f.scratch.subdirectory("cache")
        let client = #"""
            import json, sys, time, urllib.request, urllib.error
            out = sys.argv[1]
            for _ in range(300):
                urls = [l for l in open(out).read().splitlines() if l.startswith("camlib serve: http")]
                if urls: break
                time.sleep(0.1)
            base = urls[0].split(": ", 1)[1].rstrip("/")
            asset = json.load(urllib.request.urlopen(base + "/api/assets?limit=1"))["assets"][0]
            preview = urllib.request.urlopen(base + asset["media"]["preview"])
            print("preview", preview.status, preview.headers["Content-Type"], len(preview.read()))
            request = urllib.request.Request(base + f"/api/assets/{asset['id']}/revert", method="POST", headers={"X-Camlib-Request": "1"})
            try:
                urllib.request.urlopen(request)
                print("revert allowed")
            except urllib.error.HTTPError as e:
                print("revert", e.code, e.read().decode())
            """#
        let script = f.scratch.file("client.py")
        try client.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try run(
            "unshare",
            [
                "-m", "sh", "-c",
                #"mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" || exit 1; "$3" serve --library "$2" --port 0 > "$4" 2>&1 & server=$!; python3 "$5" "$4"; status=$?; kill $server; wait $server; exit $status"#,
                "sh", f.copy, f.mountPoint, Camlib.path, f.scratch.file("serve.out"), script,
            ],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_CACHE_HOME": cache.path]) { $1 })
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("preview 200 image/jpeg"), "\(result.stdout)")
        #expect(result.stdout.contains("revert 403") && result.stdout.contains("read-only"), "\(result.stdout)")
        let serveOutput = try String(contentsOfFile: f.scratch.file("serve.out"), encoding: .utf8)
        #expect(serveOutput.contains("the library is read-only: it can be looked at, not edited"), "\(serveOutput)")
        // The preview went to the cache, nothing into the library.
        let cached = try FileManager.default.subpathsOfDirectory(atPath: cache.path).filter { $0.contains("previews/") && $0.hasSuffix(".jpg") }
        #expect(cached.count == 1, "\(cached)")
        #expect(try Self.snapshot(f.copy) == untouched)
    }
}

enum ReadOnlyMount {
    /// Mount namespaces need privileges a developer's account may lack; CI runs as root.
    static let isPossible: Bool =
        (try? run("unshare", ["-m", "sh", "-c", "mount -t tmpfs none /mnt && mount -o remount,ro /mnt"]).status) == 0
}
