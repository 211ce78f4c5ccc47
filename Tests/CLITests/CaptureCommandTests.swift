@testable import Containers
import Foundation
import Testing
import TestSupport

/// `camlib capture` and `camlib devices` end to end on the virtual and file cameras, each
/// capture read back by exiftool, heif-info and ffprobe, and by camlib's own import.
struct CaptureCommandTests {
    func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    func assets(_ lib: String) throws -> [[String: Any]] {
        let q = try Camlib.run(["query", "--library", lib, "--json"])
        return try #require(try json(q.stdout) as? [[String: Any]])
    }

    func exif(_ path: String) throws -> [String: Any] {
        let r = try run("exiftool", ["-j", "-n", "-Make", "-Model", "-DateTimeOriginal", "-SubSecTimeOriginal", "-OffsetTimeOriginal", "-Orientation", "-ThumbnailImage", path])
        return try #require((try json(r.stdout) as? [[String: Any]])?.first)
    }

    func original(_ asset: [String: Any]) throws -> String {
        let resources = try #require(asset["resources"] as? [[String: Any]])
        return try #require(resources.first { ["photo", "video"].contains($0["role"] as? String) }?["path"] as? String)
    }

    @Test func photosFromTheVirtualCameraCarryExifAndAThumbnail() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run([
            "capture", "--library", lib, "--device", "virtual", "--size", "640x480", "--count", "3", "--interval", "0.2",
            "--quality", "speed", "--events",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.stdout.split(separator: "\n").map { try #require(try json(String($0)) as? [String: Any]) }
        for name in ["willBeginCapture", "willCapturePhoto", "didFinishProcessingPhoto", "didFinishCapture"] {
            #expect(events.filter { $0["event"] as? String == name }.count == 3, "\(name)")
        }
        #expect(Set(events.compactMap { $0["id"] as? Int }) == [1, 2, 3])
        let photos = try assets(lib)
        #expect(photos.count == 3)
        for asset in photos {
            #expect(asset["kind"] as? String == "photo" && asset["width"] as? Int == 640 && asset["height"] as? Int == 480)
            #expect(asset["make"] as? String == "camlib" && asset["model"] as? String == "Virtual Camera")
            let path = try original(asset)
            let tags = try exif(path)
            #expect(tags["Make"] as? String == "camlib" && tags["Model"] as? String == "Virtual Camera")
            #expect((tags["DateTimeOriginal"] as? String)?.count == 19)
            #expect(tags["SubSecTimeOriginal"] != nil && tags["OffsetTimeOriginal"] != nil && tags["Orientation"] as? Int == 1)
            let info = try run("heif-info", [path])
            #expect(info.status == 0 && info.stdout.contains("image: 640x480") && info.stdout.contains("thumbnail: 320x240"), "\(info.stdout)")
        }
        // Captured files leave the staging folder once the library holds them.
        #expect(try FileManager.default.contentsOfDirectory(atPath: lib + "/incoming").isEmpty)

        // What a killed capture left (a finished photo, an unfinished .part) is imported
        // by the next capture; the unfinished file is dropped.
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let left = lib + "/incoming/\(gone.processIdentifier)-killed"
        try FileManager.default.createDirectory(atPath: left, withIntermediateDirectories: true)
        #expect(try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x240", "-frames:v", "1", left + "/CAM_left.JPG"]).status == 0)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: left + "/CAM_half.HEIC.part"))
        let next = try Camlib.run(["capture", "--library", lib, "--size", "640x480", "--quality", "speed"])
        #expect(next.status == 0 && next.stderr.contains("interrupted capture left"), "\(next.stderr)")
        #expect(try assets(lib).count == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: lib + "/incoming").isEmpty)
        // The camera chosen with --device is remembered.
        let devices = try #require(try json(try Camlib.run(["devices", "--library", lib, "--json"]).stdout) as? [[String: Any]])
        #expect(devices.contains { $0["id"] as? String == "virtual" && $0["isDefault"] as? Bool == true })
    }

    @Test func aJPEGWithAnOrientationShowsTurned() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--size", "640x480", "--format", "jpeg", "--orientation", "6", "--quality", "quality"])
        #expect(r.status == 0, "\(r.stderr)")
        let asset = try #require(try assets(lib).first)
        #expect(asset["width"] as? Int == 480 && asset["height"] as? Int == 640 && asset["orientation"] as? Int == 6)
        let tags = try exif(try original(asset))
        #expect(tags["Orientation"] as? Int == 6)
        #expect((tags["ThumbnailImage"] as? String)?.contains("Binary data") == true)
    }

    @Test func aMovieWithPhotosDuringIt() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--size", "640x480", "--movie", "--duration", "2", "--photo-at", "0.5,1.2"])
        #expect(r.status == 0, "\(r.stderr)")
        let all = try assets(lib)
        let movie = try #require(all.first { $0["kind"] as? String == "video" })
        #expect(movie["capturedAt"] as? String != nil)
        let photos = all.filter { $0["kind"] as? String == "photo" }
        #expect(photos.count == 2)
        #expect(photos.allSatisfy { $0["width"] as? Int == 640 && $0["height"] as? Int == 480 })
        let probe = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames:format=duration,bit_rate", "-of", "json", try original(movie)])
        let info = try #require(try json(probe.stdout) as? [String: Any])
        let stream = try #require((info["streams"] as? [[String: Any]])?.first)
        #expect(stream["codec_name"] as? String == "h264" && stream["width"] as? Int == 640)
        let frames = Int(stream["nb_read_frames"] as? String ?? "") ?? 0
        // Two seconds at 30 fps; a loaded machine may lower the rate (system pressure).
        #expect(frames >= 20 && frames <= 62, "\(frames) frames")
        let duration = Double(((info["format"] as? [String: Any])?["duration"] as? String) ?? "") ?? 0
        #expect(duration > 1.8 && duration < 2.3, "\(duration) s")
        // The noisy scene stays near a phone's bit rate: 0.2 bits per pixel per frame.
        let bitRate = Double(((info["format"] as? [String: Any])?["bit_rate"] as? String) ?? "") ?? 0
        #expect(bitRate > 0 && bitRate < 1.5 * 640 * 480 * 30 * 0.2, "\(bitRate) bit/s")
        // exiftool reads Apple's QuickTime keys.
        let keys = try run("exiftool", ["-j", "-Keys:Make", "-Keys:Model", "-Keys:CreationDate", try original(movie)])
        let tags = try #require((try json(keys.stdout) as? [[String: Any]])?.first)
        #expect(tags["Make"] as? String == "camlib" && tags["Model"] as? String == "Virtual Camera" && tags["CreationDate"] != nil, "\(keys.stdout)")
    }

    @Test(arguments: [SIGINT, SIGTERM]) func aSignalFinishesTheMovie(_ signal: Int32) throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Camlib.path)
        p.arguments = ["capture", "--library", lib, "--size", "320x240", "--movie"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // Wait until it records, then interrupt as a user would.
        let deadline = Date().addingTimeInterval(20)
        var seen = Data()
        while Date() < deadline, !String(decoding: seen, as: UTF8.self).contains("recording") {
            seen += err.fileHandleForReading.availableData
        }
        Thread.sleep(forTimeInterval: 1.5)
        kill(p.processIdentifier, signal)
        let rest = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(String(decoding: seen + rest, as: UTF8.self))")
        let movie = try #require(try assets(lib).first { $0["kind"] as? String == "video" })
        let probe = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", try original(movie)])
        #expect((Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 10, "\(probe.stdout) \(probe.stderr)")
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage))
    func theFileCameraReplaysALivePhotoMovie() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let movie = Media.path("apple-live-photo/IMG_3582.mov")
        let r = try Camlib.run(["capture", "--library", lib, "--device", "file:" + movie, "--speed", "0", "--quality", "speed", "--count", "2", "--interval", "0"])
        #expect(r.status == 0, "\(r.stderr)")
        let photos = try assets(lib)
        #expect(photos.count == 2)
        for asset in photos {
            let path = try original(asset)
            // Stored as the movie's frames are (1920x1440), shown turned by the movie's
            // rotation, as the movie itself is shown.
            let stored = try run("exiftool", ["-s3", "-n", "-ImageSpatialExtent", path])
            #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1920 1440", "\(stored.stdout)")
            let info = try run("heif-info", [path])
            #expect(info.stdout.contains("image: 1440x1920"), "\(info.stdout)")
            #expect(asset["orientation"] as? Int == 6 && asset["model"] as? String == "File Camera")
        }
    }

    @Test func aTurnedHEICCaptureSaysItsColoursAndItsTurnIsEssential() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--size", "640x480", "--orientation", "6", "--quality", "speed"])
        #expect(r.status == 0, "\(r.stderr)")
        let path = try original(try #require(try assets(lib).first))
        // heif-info reads the colour profile: nclx, sRGB primaries and transfer.
        let info = try run("heif-info", [path])
        #expect(info.stdout.contains("color profile: nclx") && info.stdout.contains("image: 480x640"), "\(info.stdout)")
        let tags = try run("exiftool", ["-s3", "-n", "-ColorPrimaries", "-TransferCharacteristics", "-MatrixCoefficients", path])
        #expect(tags.stdout.split(separator: "\n") == ["1", "13", "6"], "\(tags.stdout)")
        // irot and colr are essential on the photo, as MIAF asks.
        let meta = try HEIFMetaBox(file: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        let properties = meta.properties(of: meta.primaryItemID)
        for type in ["irot", "colr"] {
            let property = try #require(properties.first { $0.type == type }, "no \(type)")
            #expect(property.association.essential, "\(type) is not essential")
        }
    }

    /// A 0.3 s movie of ffmpeg's test pattern (9 frames at 30 fps).
    func shortMovie(in scratch: ScratchDirectory) throws -> String {
        let movie = scratch.file("short.mov")
        let made = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-frames:v", "9", "-c:v", "libx264", "-pix_fmt", "yuv420p", movie])
        #expect(made.status == 0, "\(made.stderr)")
        return movie
    }

    @Test func aShortFileCameraHoldsItsLastFrameSaysSoAndIsRememberedByItsFullPath() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let movie = try shortMovie(in: scratch)
        // Named relative to this process's folder, as a user would type it.
        let here = FileManager.default.currentDirectoryPath.split(separator: "/")
        let relative = String(repeating: "../", count: here.count) + movie.dropFirst()
        // Photos at 0, 0.6 and 1.2 s: the last two after the 0.3 s movie has ended.
        let r = try Camlib.run(["capture", "--library", lib, "--device", "file:" + relative, "--count", "3", "--interval", "0.6", "--events"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stdout.split(separator: "\n").compactMap { try? json(String($0)) as? [String: Any] }
        let ends = events.filter { $0["event"] as? String == "didEndStream" }
        #expect(ends.count == 1 && (ends.first?["message"] as? String)?.contains("its last frame is held") == true, "\(r.stdout)")
        let photos = try assets(lib).compactMap { try? original($0) }
        #expect(photos.count == 3)
        // The two late ones are the movie's last frame, the same pixels (heif-dec decodes
        // them; their PNGs differ in metadata, so FFmpeg gives the bare pixels).
        let decoded = try photos.suffix(2).enumerated().map { i, path -> Data in
            let png = scratch.file("late\(i).png"), raw = scratch.file("late\(i).rgb")
            #expect(try run("heif-dec", [path, png]).status == 0)
            #expect(try run("ffmpeg", ["-v", "error", "-i", png, "-f", "rawvideo", "-pix_fmt", "rgb24", raw]).status == 0)
            return try Data(contentsOf: URL(fileURLWithPath: raw))
        }
        #expect(decoded.count == 2 && !decoded[0].isEmpty && decoded[0] == decoded[1])
        // Remembered as an absolute path: the next capture finds it from anywhere.
        let remembered = try run("sqlite3", [lib + "/catalog.sqlite", "SELECT value FROM preference WHERE key = 'capture.device'"])
        #expect(remembered.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "file:" + movie, "\(remembered.stdout)")
        let again = try Camlib.run(["capture", "--library", lib, "--count", "1"])
        #expect(again.status == 0 && again.stderr.contains("camera file:" + movie), "\(again.stderr)")
    }

    @Test func aLoopingFileCameraPlaysItsMovieAgain() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let movie = try shortMovie(in: scratch)
        let r = try Camlib.run(["capture", "--library", lib, "--device", "file:" + movie, "--loop", "--movie", "--duration", "1", "--events"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("didEndStream"), "\(r.stdout)")
        let recorded = try #require(try assets(lib).first { $0["kind"] as? String == "video" })
        // A second of the 0.3 s movie plays it three times: which of its 9 frames each
        // recorded frame shows (nearest by pixels) goes back to the start at least twice.
        // Counting frames would not do: a recorder under load drops late ones.
        func tiny(_ path: String, _ name: String) throws -> [[UInt8]] {
            let raw = scratch.file(name)
            #expect(try run("ffmpeg", ["-v", "error", "-y", "-i", path, "-vf", "scale=32:24", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", raw]).status == 0)
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            return stride(from: 0, to: bytes.count - 767, by: 768).map { Array(bytes[$0..<($0 + 768)]) }
        }
        func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
            zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        }
        let source = try tiny(movie, "source.gray"), played = try tiny(try original(recorded), "played.gray")
        #expect(source.count == 9)
        let shown = played.map { frame in source.indices.min { distance(frame, source[$0]) < distance(frame, source[$1]) } ?? 0 }
        let restarts = zip(shown, shown.dropFirst()).filter { $0.1 < $0.0 }.count
        #expect(restarts >= 2, "source frames shown: \(shown)")
    }

    @Test func choicesAreReadAsTheirValuesInAnyCase() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--format", "JPEG", "--quality", "Speed", "--size", "640x480"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try original(try #require(try assets(lib).first)).hasSuffix(".JPG"))
        for (option, value, listed) in [("--quality", "fast", "'speed', 'balanced' or 'quality'"), ("--format", "png", "'heic' and 'jpeg'"), ("--codec", "vp9", "'hevc' and 'h264'")] {
            let bad = try Camlib.run(["capture", "--library", lib, option, value])
            #expect(bad.status == 64 && bad.stderr.contains("'\(value)' is invalid for '\(option)") && bad.stderr.contains(listed), "\(bad.stderr)")
        }
    }

    @Test func anUnknownDeviceIsAClearError() throws {
        let scratch = try ScratchDirectory()
        let r = try Camlib.run(["capture", "--library", scratch.file("lib"), "--device", "/dev/video99"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("/dev/video99") && r.stderr.contains("no such camera"), "\(r.stderr)")
        let bad = try Camlib.run(["capture", "--library", scratch.file("lib"), "--photo-at", "1"])
        #expect(bad.status == 64 && bad.stderr.contains("--photo-at needs --movie"))
    }
}

/// `capture -i` in a pseudo-terminal (util-linux `script`), driven by keys.
struct InteractiveCaptureTests {
    @Test(.enabled(if: toolExists("script"))) func keysTakeAPhotoAndRecordAMovie() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let keys = "(sleep 2; printf p; sleep 1; printf r; sleep 1.5; printf r; sleep 1; printf q)"
        let command = "\(keys) | script -q -e -c '\(Camlib.path) capture -i --library \(lib) --size 320x240' /dev/null"
        let r = try run("sh", ["-c", command])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("REC"))
        let q = try Camlib.run(["query", "--library", lib, "--json"])
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [[String: Any]])
        #expect(Set(assets.compactMap { $0["kind"] as? String }) == ["photo", "video"], "\(r.stdout)")
        #expect(assets.count == 2)
    }
}

/// `camlib capture --live`: Live Photos from the virtual camera, read back by exiftool,
/// ffprobe and camlib's own import.
struct LiveCaptureTests {
    /// What of a movie's boxes Apple Photos goes by: `moov`'s children in order, each
    /// track's handler, `tkhd` flags and sample entry, the keys of `moov/meta` and of
    /// `moov/udta/meta`.
    struct QuickTimeLayout {
        var moovChildren: [String] = []
        var tracks: [(handler: String, flags: UInt32, entry: String, stillImageTimeKey: Bool)] = []
        var moovKeys: [String: String] = [:]
        var udtaKeys: [String] = []

        init(_ path: String) throws {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let moov = try #require(ISOBox.sequence(in: bytes, from: 0, limit: bytes.count).first { $0.type == "moov" })
            func child(_ box: ISOBox, _ type: String) -> ISOBox? { box.children(in: bytes).first { $0.type == type } }
            for box in moov.children(in: bytes) {
                moovChildren.append(box.type)
                switch box.type {
                case "trak":
                    let tkhd = try #require(child(box, "tkhd"))
                    let at = tkhd.payload.lowerBound
                    let flags = (UInt32(bytes[at + 1]) << 16) | (UInt32(bytes[at + 2]) << 8) | UInt32(bytes[at + 3])
                    let mdia = try #require(child(box, "mdia"))
                    let hdlr = try #require(child(mdia, "hdlr"))
                    let handler = String(decoding: bytes[(hdlr.payload.lowerBound + 8)..<(hdlr.payload.lowerBound + 12)], as: UTF8.self)
                    let minf = try #require(child(mdia, "minf"))
                    let stbl = try #require(child(minf, "stbl"))
                    let stsd = try #require(child(stbl, "stsd"))
                    let entry = String(decoding: bytes[(stsd.payload.lowerBound + 12)..<(stsd.payload.lowerBound + 16)], as: UTF8.self)
                    let key = Array("com.apple.quicktime.still-image-time".utf8)
                    let description: [UInt8] = Array(bytes[stsd.payload])
                    var stillImageTime = false
                    for i in 0..<max(0, description.count - key.count) where Array(description[i..<(i + key.count)]) == key {
                        stillImageTime = true
                    }
                    tracks.append((handler, flags, entry, stillImageTime))
                case "meta":
                    for (key, data) in try LivePhotoMovie.quickTimeKeys(in: bytes, meta: box) {
                        moovKeys[key] = String(decoding: data.dropFirst(16), as: UTF8.self)
                    }
                case "udta":
                    for meta in box.children(in: bytes) where meta.type == "meta" {
                        udtaKeys += try LivePhotoMovie.quickTimeKeys(in: bytes, meta: meta).map(\.key)
                    }
                default: break
                }
            }
        }
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage))
    func theLivePhotoMovieIsLaidOutAsAnIPhonesIs() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--live", "--size", "640x480", "--quality", "speed"])
        #expect(r.status == 0, "\(r.stderr)")
        let listing = try Camlib.run(["query", "--library", lib, "--json"]).stdout
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(listing.utf8)) as? [[String: Any]])
        let asset = try #require(assets.first)
        let resources = try #require(asset["resources"] as? [[String: Any]])
        let still = try #require(resources.first { $0["role"] as? String == "photo" }?["path"] as? String)
        let mine = try QuickTimeLayout(try #require(resources.first { $0["role"] as? String == "pairedVideo" }?["path"] as? String))
        let apple = try QuickTimeLayout(Media.path("apple-live-photo/IMG_3582.mov"))

        // The keys in moov/meta, none left in udta, and the ones an iPhone writes.
        #expect(apple.udtaKeys.isEmpty && mine.udtaKeys.isEmpty, "\(mine.udtaKeys)")
        for key in ["make", "model", "software", "creationdate", "content.identifier"].map({ "com.apple.quicktime." + $0 }) {
            #expect(apple.moovKeys[key] != nil && mine.moovKeys[key] != nil, "\(key): \(mine.moovKeys)")
        }
        #expect(Set(mine.moovKeys.keys).isSubset(of: Set(apple.moovKeys.keys)), "not an iPhone's: \(Set(mine.moovKeys.keys).subtracting(apple.moovKeys.keys))")
        #expect(mine.moovKeys["com.apple.quicktime.content.identifier"] == asset["contentIdentifier"] as? String)
        // moov/meta last, after the tracks and udta, as in the iPhone's.
        #expect(mine.moovChildren.last == "meta" && apple.moovChildren.filter { $0 != "free" }.last == "meta", "\(mine.moovChildren)")
        // The video track and the still-image-time track as the iPhone's, flags included.
        let myVideo = try #require(mine.tracks.first { $0.handler == "vide" })
        let appleVideo = try #require(apple.tracks.first { $0.handler == "vide" })
        #expect(myVideo.flags == appleVideo.flags && appleVideo.flags == 0xF)
        let myStill = try #require(mine.tracks.first { $0.stillImageTimeKey })
        let appleStill = try #require(apple.tracks.first { $0.stillImageTimeKey })
        #expect(myStill.handler == appleStill.handler && myStill.entry == appleStill.entry && myStill.entry == "mebx" && myStill.flags == appleStill.flags)
        // creationdate is the still's moment, as DateTimeOriginal says it.
        let taken = try run("exiftool", ["-s3", "-d", "%Y-%m-%dT%H:%M:%S%z", "-DateTimeOriginal", still]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(mine.moovKeys["com.apple.quicktime.creationdate"] == taken, "\(mine.moovKeys) vs \(taken)")
    }

    @Test func aLivePhotoPairsAndCarriesAppleMetadata() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["capture", "--library", lib, "--live", "--size", "640x480", "--quality", "speed", "--events"])
        #expect(r.status == 0, "\(r.stderr)")
        let events = try r.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let names = events.map { $0["event"] as? String ?? "" }
        for name in ["willCapturePhoto", "didFinishProcessingPhoto", "didFinishRecordingLivePhotoMovie", "didFinishProcessingLivePhotoMovie"] {
            #expect(names.contains(name), "\(names)")
        }
        #expect(names.last == "didFinishCapture")
        #expect(events.first { $0["event"] as? String == "didFinishRecordingLivePhotoMovie" }?["livePhotosInProgress"] as? Int == 1)

        let q = try Camlib.run(["query", "--library", lib, "--json"])
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [[String: Any]])
        #expect(assets.count == 1)
        let asset = try #require(assets.first)
        #expect(asset["kind"] as? String == "live")
        #expect((asset["pairing"] as? [String: Any])?["rule"] as? String == "contentIdentifier")
        let resources = try #require(asset["resources"] as? [[String: Any]])
        let still = try #require(resources.first { $0["role"] as? String == "photo" }?["path"] as? String)
        let movie = try #require(resources.first { $0["role"] as? String == "pairedVideo" }?["path"] as? String)

        // One identifier in both halves, as exiftool reads them.
        let tags = try run("exiftool", ["-j", "-ee", "-G1", "-MediaGroupUUID", "-ContentIdentifier", "-StillImageTime", still, movie])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(tags.stdout.utf8)) as? [[String: Any]])
        let stillID = rows[0]["Apple:MediaGroupUUID"] as? String ?? rows[0]["Apple:ContentIdentifier"] as? String
        #expect(stillID != nil && stillID == rows[1]["Keys:ContentIdentifier"] as? String, "\(tags.stdout)")
        #expect(rows[1].keys.contains { $0.hasSuffix("StillImageTime") }, "\(tags.stdout)")
        #expect(stillID == asset["contentIdentifier"] as? String)

        // The movie: a timed metadata track, and 1.5 s either side of the shutter.
        let probe = try run(
            "ffprobe", ["-v", "error", "-show_entries", "stream=codec_type,codec_name,codec_tag_string,sample_rate:format=duration", "-of", "json", movie])
        let info = try #require(try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as? [String: Any])
        let streams = try #require(info["streams"] as? [[String: Any]])
        #expect(streams.contains { $0["codec_type"] as? String == "data" && $0["codec_tag_string"] as? String == "mebx" })
        // With sound, as every Live Photo has: the virtual camera's microphone, AAC.
        #expect(streams.contains { $0["codec_type"] as? String == "audio" && $0["codec_name"] as? String == "aac" && $0["sample_rate"] as? String == "48000" }, "\(probe.stdout)")
        // heif-info reads the still, with the colour profile captures carry.
        let heifInfo = try run("heif-info", [still])
        #expect(heifInfo.status == 0 && heifInfo.stdout.contains("color profile: nclx"), "\(heifInfo.stdout)")
        let duration = Double(((info["format"] as? [String: Any])?["duration"] as? String) ?? "") ?? 0
        #expect(duration >= 2.5 && duration <= 3.5, "\(duration) s")

        // The photo display time, read back on import, points at the still's frame.
        let t = try #require(asset["stillImageTime"] as? Double)
        #expect(t >= 1.5 && t <= 2.05, "\(t) s")
        let scratchPNG = scratch.file("still.png")
        #expect(try run("heif-dec", [still, scratchPNG]).status == 0)
        func gray(_ input: [String]) throws -> [UInt8] {
            let out = scratch.file("frame.gray")
            let r = try run("ffmpeg", ["-v", "error", "-y"] + input + ["-frames:v", "1", "-vf", "scale=160:120", "-f", "rawvideo", "-pix_fmt", "gray", out])
            #expect(r.status == 0, "\(r.stderr)")
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
            guard a.count == b.count, !a.isEmpty else { return .infinity }
            return Double(zip(a, b).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(a.count)
        }
        // The movie's frames within 0.2 s of the display time, as they are in the file: no
        // frame repeated where a busy machine made the camera drop one (`-fps_mode
        // passthrough`; ffmpeg otherwise fills such a gap with the frame before it), each
        // with its time (showinfo).
        let window = scratch.file("window.gray")
        let decoded = try run(
            "ffmpeg",
            [
                "-v", "info", "-y", "-i", movie, "-vf",
                "select='between(t,\(String(format: "%.3f", t - 0.2)),\(String(format: "%.3f", t + 0.2)))',showinfo,scale=160:120",
                "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", window,
            ])
        #expect(decoded.status == 0, "\(decoded.stderr.suffix(2000))")
        let times = decoded.stderr.split(separator: "\n").filter { $0.contains("Parsed_showinfo") }.compactMap { line in
            line.range(of: "pts_time:").flatMap { Double(line[$0.upperBound...].prefix { !$0.isWhitespace }) }
        }
        let pixels = [UInt8](try Data(contentsOf: URL(fileURLWithPath: window)))
        let size = 160 * 120
        #expect(times.count >= 5 && pixels.count == times.count * size, "\(times.count) frames, \(pixels.count) bytes")
        // The same sensor frame (same noise) went into both; only the codecs differ. Any
        // other frame differs more.
        let stillPixels = try gray(["-i", scratchPNG])
        let differences = times.indices.map { i in (time: times[i], difference: difference(stillPixels, Array(pixels[i * size..<(i + 1) * size]))) }
        let best = try #require(differences.min { $0.difference < $1.difference })
        #expect(abs(best.time - t) < 0.5 / 30, "the closest frame is at \(best.time) s, the display time \(t) s: \(differences)")
        #expect(best.difference < 6, "\(differences)")
        #expect(differences.filter { $0.difference <= best.difference }.count == 1, "\(differences)")

        // Copied elsewhere under unrelated names, the halves pair again by identifier.
        let elsewhere = try scratch.subdirectory("elsewhere")
        try FileManager.default.copyItem(atPath: still, toPath: elsewhere.appendingPathComponent("holiday.heic").path)
        try FileManager.default.copyItem(atPath: movie, toPath: elsewhere.appendingPathComponent("clip_0042.mov").path)
        let other = scratch.file("other")
        #expect(try Camlib.run(["import", "--library", other, elsewhere.path]).status == 0)
        let again = try #require(try JSONSerialization.jsonObject(with: Data(try Camlib.run(["query", "--library", other, "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(again.count == 1 && again.first?["kind"] as? String == "live")
        #expect((again.first?["pairing"] as? [String: Any])?["rule"] as? String == "contentIdentifier")
    }

    @Test func aCapturedLivePhotoEditsInItsOwnCodec() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        #expect(try Camlib.run(["capture", "--library", lib, "--live", "--depth", "--size", "320x240", "--quality", "speed"]).status == 0)
        let edit = try Camlib.run(["edit", "--library", lib, "1", "--filter", "mono"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let q = try Camlib.run(["show", "--library", lib, "1", "--json"])
        let asset = try #require(try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [String: Any])
        let resources = try #require(asset["resources"] as? [[String: Any]])
        let original = try #require(resources.first { $0["role"] as? String == "pairedVideo" }?["path"] as? String)
        let rendered = try #require(resources.first { $0["role"] as? String == "renderedVideo" }?["path"] as? String)
        func probe(_ path: String) throws -> String {
            try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=codec_name,nb_read_frames", "-of", "csv=p=0", path]).stdout
        }
        // H.264 stays H.264, frame for frame; the still-image-time track and the depth stay.
        let (before, after) = (try probe(original), try probe(rendered))
        #expect(after == before && before.hasPrefix("h264"), "\(before) -> \(after)")
        #expect(try run("exiftool", ["-ee", "-StillImageTime", rendered]).stdout.contains("Still Image Time"))
        #expect((asset["aux"] as? [[String: Any]])?.contains { $0["type"] as? String == "depth" } == true)
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage))
    func anIPhoneLivePhotosDisplayTimeIsRead() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run(["import", "--library", lib, Media.path("apple-live-photo/IMG_3582.HEIC"), Media.path("apple-live-photo/IMG_3582.mov")])
        #expect(r.status == 0, "\(r.stderr)")
        let q = try Camlib.run(["query", "--library", lib, "--json"])
        let asset = try #require((try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [[String: Any]])?.first)
        // IMG_3582.mov's still-image-time track: an empty edit of 799/600 s, then the sample.
        let t = try #require(asset["stillImageTime"] as? Double)
        #expect(abs(t - 799.0 / 600) < 0.001, "\(t)")
        let shown = try Camlib.run(["show", "--library", lib, "1"]).stdout
        #expect(shown.contains("Still at    1.332 s into the movie"), "\(shown)")
    }
}

/// Depth and mattes from the virtual camera, attached as HEIF auxiliary images.
struct DepthCaptureTests {
    @Test func depthAndMattesAreAttachedAndReadBack() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let r = try Camlib.run([
            "capture", "--library", lib, "--size", "640x480", "--quality", "speed", "--depth", "--portrait-matte", "--matte", "skin,hair,teeth",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let q = try Camlib.run(["query", "--library", lib, "--json"])
        let asset = try #require((try JSONSerialization.jsonObject(with: Data(q.stdout.utf8)) as? [[String: Any]])?.first)
        let photo = try #require((asset["resources"] as? [[String: Any]])?.first { $0["role"] as? String == "photo" }?["path"] as? String)

        // libheif (heif-info) sees the depth image and its representation.
        let info = try run("heif-info", [photo])
        #expect(info.stdout.contains("depth channel: yes") && info.stdout.contains("representation: uniform Z"), "\(info.stdout)")
        #expect(info.stdout.contains("z-near: 1.2") && info.stdout.contains("z-far:  4.0"), "\(info.stdout)")
        // exiftool lists every auxiliary image type, the portrait matte among them.
        let exif = try run("exiftool", ["-a", "-s3", "-AuxiliaryImageType", photo])
        for urn in ["urn:mpeg:hevc:2015:auxid:2", "urn:com:apple:photo:2018:aux:portraiteffectsmatte", "urn:com:apple:photo:2019:aux:semanticskinmatte",
                    "urn:com:apple:photo:2019:aux:semantichairmatte", "urn:com:apple:photo:2019:aux:semanticteethmatte"] {
            #expect(exif.stdout.contains(urn), "\(urn) in \(exif.stdout)")
        }

        // camlib's import recorded them; the depth comes back in metres.
        let aux = try #require(asset["aux"] as? [[String: Any]])
        #expect(Set(aux.compactMap { $0["type"] as? String }) == ["depth", "portraitEffectsMatte", "skinMatte", "hairMatte", "teethMatte"])
        let depth = try #require(aux.first { $0["type"] as? String == "depth" })
        let encoding = try #require(depth["encoding"] as? [String: Any])
        let near = try #require(encoding["floatMin"] as? Double), far = try #require(encoding["floatMax"] as? Double)
        #expect(depth["width"] as? Int == 160 && depth["height"] as? Int == 120 && encoding["units"] as? String == "m")
        let out = scratch.file("aux")
        #expect(try Camlib.run(["aux", "extract", "--library", lib, photo, "--type", "depth", "--out", out]).status == 0)
        let png = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix(".png") })
        let raw = scratch.file("depth.gray")
        #expect(try run("ffmpeg", ["-v", "error", "-y", "-i", out + "/" + png, "-f", "rawvideo", "-pix_fmt", "gray", raw]).status == 0)
        let samples = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        #expect(samples.count == 160 * 120)
        func metres(_ x: Int, _ y: Int) -> Double { near + Double(samples[y * 160 + x]) / 255 * (far - near) }
        // The wall in a corner, the person's body low in the middle (the scene's truth).
        #expect(abs(metres(2, 2) - 4.0) < 0.02, "\(metres(2, 2))")
        #expect(abs(metres(80, 90) - 1.2) < 0.02, "\(metres(80, 90))")
    }

    @Test func askingForMoreThanTheCameraHasIsAClearError() throws {
        let scratch = try ScratchDirectory()
        let r = try Camlib.run(["capture", "--library", scratch.file("lib"), "--matte", "glasses"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cannot deliver glasses") && r.stderr.contains("depth, portraitMatte"), "\(r.stderr)")
        let jpeg = try Camlib.run(["capture", "--library", scratch.file("lib"), "--depth", "--format", "jpeg"])
        #expect(jpeg.status == 64 && jpeg.stderr.contains("--format heic"))
    }
}

/// A camera that fails is not remembered as the default.
struct CapturePreferenceTests {
    @Test func onlyAWorkingCameraIsRemembered() throws {
        let scratch = try ScratchDirectory()
        let lib = scratch.file("lib")
        let notAMovie = scratch.file("notes.txt")
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: notAMovie))
        let bad = try Camlib.run(["capture", "--library", lib, "--device", "file:" + notAMovie])
        #expect(bad.status == 1 && bad.stderr.contains("cannot replay"), "\(bad.stderr)")
        // The next capture without --device uses the default camera, not the broken one.
        let good = try Camlib.run(["capture", "--library", lib, "--size", "320x240", "--quality", "speed"])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stderr.contains("camera virtual"), "\(good.stderr)")
    }
}
