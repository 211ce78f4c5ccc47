import ArgumentParser
import Capture
import Codecs
import Foundation
import Imaging
import Library

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Take photos and movies from a camera into the library.",
        discussion: Help.reflow(
            """
            One of --photo (the default), --movie or -i (interactive). The camera is
            --device, else the one chosen last time, else the best V4L2 colour camera, else
            the built-in virtual camera (see `camlib devices`), so every machine can capture.

            --live takes Live Photos: a movie from 1.5 s before to 1.5 s after the shutter
            (frames are encoded all along into a ring, so there is no shutter lag), with the
            still's content identifier and Apple's still-image-time track, so Apple Photos,
            Immich and camlib pair them.

            Photos: HEIC (or JPEG) at the camera's largest size with a thumbnail and Exif
            (Make/Model, DateTimeOriginal with sub-seconds and UTC offset, orientation).
            --quality speed takes one frame; balanced merges 3 and quality 6 aligned frames,
            which lowers sensor noise. The shutter returns at once: captures overlap, each
            with its own id.

            Movies: MOV (H.264 by default: x265 cannot keep 1920x1440 at 30 fps on two
            cores; --codec hevc for HEVC) until --duration, Ctrl-C or SIGTERM; always
            finished into a playable file. --photo-at takes photos during the recording.
            When the machine falls behind, the frame rate is lowered and a systemPressure
            event says so.

            Progress goes to stderr; --events prints JSON lines on stdout instead:
            {"event": "willBeginCapture" | "willCapturePhoto" | "didFinishProcessingPhoto" |
            "didFinishCapture" | "didStartRecording" | "didFinishRecording" | "systemPressure" |
            "error", "id": N, "time": seconds, ...}.

            Files are written to LIBRARY/incoming and then imported like any file (so they
            pair, get thumbnails and show in `camlib query`); an interrupted capture's files
            are imported by the next one. Exit status: 0 when everything was captured and
            imported; 2 when some captures failed; 1 when the camera failed (what was
            captured before is still saved).
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Option(name: .long, help: ArgumentHelp("Camera: virtual, file:PATH or /dev/videoN (remembered as the default).", valueName: "id"))
    var device: String?

    @Flag(name: .long, help: "Take photos (the default).")
    var photo = false

    @Flag(name: .long, help: "Record a movie.")
    var movie = false

    @Flag(name: .long, help: "Live Photos: each photo with a movie from 1.5 s before to 1.5 s after the shutter.")
    var live = false

    @Flag(name: .long, help: "Attach the camera's depth map to each photo (HEIC).")
    var depth = false

    @Flag(name: .customLong("portrait-matte"), help: "Attach a portrait effects matte (the person) to each photo.")
    var portraitMatte = false

    @Option(name: .long, help: ArgumentHelp("Attach semantic mattes: skin, hair, teeth, glasses.", valueName: "list"))
    var matte: String?

    @Option(name: .customLong("depth-device"), help: ArgumentHelp("A Z16 depth camera to pair with the colour camera.", valueName: "path"))
    var depthDevice: String?

    @Flag(name: [.customShort("i"), .customLong("interactive")], help: "Interactive: keys for photo, record, quit; a status line.")
    var interactive = false

    @Option(name: .long, help: "Photos to take.")
    var count = 1

    @Option(name: .long, help: ArgumentHelp("Seconds between photos.", valueName: "seconds"))
    var interval = 0.5

    @Option(name: .long, help: ArgumentHelp("Photo file format: heic or jpeg.", valueName: "format"))
    var format: PhotoSettings.FileFormat = .heic

    @Option(name: .long, help: ArgumentHelp("speed (one frame), balanced (3 merged) or quality (6 merged).", valueName: "priority"))
    var quality: PhotoSettings.QualityPrioritization = .balanced

    @Option(name: .long, help: ArgumentHelp("EXIF orientation 1-8 of photos and movies (default: the camera's).", valueName: "n"))
    var orientation: Int?

    @Option(name: .long, help: ArgumentHelp("Movie length in seconds (default: until Ctrl-C).", valueName: "seconds"))
    var duration: Double?

    @Option(name: .customLong("photo-at"), help: ArgumentHelp("Photos during the movie, at these seconds: 1.0,2.5", valueName: "times"))
    var photoAt: String?

    @Option(name: .long, help: ArgumentHelp("Movie codec: h264 or hevc.", valueName: "codec"))
    var codec: MovieWriter.Codec = .h264

    @Option(name: .long, help: ArgumentHelp("Frame size, e.g. 1280x960 (default: the camera's largest).", valueName: "WxH"))
    var size: String?

    @Option(name: .long, help: ArgumentHelp("Frames per second (default: 30, or the camera's fastest below).", valueName: "fps"))
    var fps: Double?

    @Option(name: .long, help: "Seed of the virtual camera's scene.")
    var seed: UInt64 = 1

    @Option(name: .long, help: ArgumentHelp("file: cameras replay at this speed; 0 = as fast as frames decode.", valueName: "factor"))
    var speed: Double = 1

    @Flag(name: .customLong("no-audio"), help: "Record movies and Live Photos without sound.")
    var noAudio = false

    @Flag(name: .long, help: "file: cameras play their movie again at its end (otherwise they hold its last frame).")
    var loop = false

    @Flag(name: .long, help: "When the camera is busy, wait for it instead of failing.")
    var wait = false

    @OptionGroup var output: JSONOutput<CaptureCommand>

    @Flag(name: .long, help: "Print capture events as JSON lines on stdout.")
    var events = false

    func validate() throws {
        if [photo, movie, interactive].filter({ $0 }).count > 1 { throw ValidationError("choose one of --photo, --movie and -i") }
        if output.json && events { throw ValidationError("choose one of --json and --events (both write to standard output)") }
        if count < 1 { throw ValidationError("--count must be at least 1") }
        if interval < 0 { throw ValidationError("--interval cannot be negative") }
        if let orientation, !(1...8).contains(orientation) { throw ValidationError("--orientation is 1 to 8 (EXIF), not \(orientation)") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        if let size, FrameSize(size) == nil { throw ValidationError("--size is WIDTHxHEIGHT, e.g. 1920x1440, not '\(size)'") }
        if let fps, fps <= 0 { throw ValidationError("--fps must be positive") }
        if photoAt != nil && !movie { throw ValidationError("--photo-at needs --movie") }
        if live && movie { throw ValidationError("--live takes Live Photos; it does not combine with --movie") }
        if let matte {
            for name in matte.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !["skin", "hair", "teeth", "glasses"].contains(name) {
                throw ValidationError("--matte takes skin, hair, teeth and glasses, not '\(name)'")
            }
        }
        if !requestedAuxiliary.isEmpty && format != .heic {
            throw ValidationError("depth and mattes are stored as HEIF auxiliary images: use --format heic")
        }
        if !requestedAuxiliary.isEmpty && movie { throw ValidationError("depth and mattes come with photos, not with --movie") }
        if let photoAt, parseTimes(photoAt) == nil { throw ValidationError("--photo-at takes seconds separated by commas, e.g. 1.0,2.5") }
        if speed < 0 { throw ValidationError("--speed cannot be negative") }
    }

    func parseTimes(_ text: String) -> [Double]? {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.compactMap { $0 }.sorted()
    }

    var requestedAuxiliary: [AuxiliaryOutput] {
        var out: [AuxiliaryOutput] = []
        if depth { out.append(.depth) }
        if portraitMatte { out.append(.portraitMatte) }
        for name in (matte ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if let o = AuxiliaryOutput(rawValue: name), !out.contains(o) { out.append(o) }
        }
        return out
    }

    /// The virtual camera's own microphone for the virtual camera; the system's default
    /// input (ALSA) for the others.
    static func microphone(for camera: FrameSource) -> any AudioSource {
        (camera as? VirtualCamera)?.microphone() ?? SystemMicrophone(beside: camera)
    }

    var photoSettings: PhotoSettings {
        var settings = PhotoSettings(
            format: format, quality: quality,
            orientation: orientation.flatMap { EXIFOrientation(rawValue: $0) }, livePhoto: live)
        settings.auxiliary = requestedAuxiliary
        return settings
    }

    func run() throws {
        let library = try libraryOptions.open(.create)
        let cameraID: String
        if let device {
            cameraID = DeviceDiscovery.normalized(device)
        } else {
            cameraID = DeviceDiscovery.defaultDevice(preferred: try library.preference("capture.device"), among: DeviceDiscovery.devices())
        }
        let camera: FrameSource
        do {
            camera = try DeviceDiscovery.camera(cameraID, seed: seed, fileSpeed: speed, fileLoop: loop)
        } catch {
            throw CaptureStartFailure.report("camlib: \(error)")
        }
        var offered = camera.device.auxiliaryOutputs
        var depthCamera: DepthCamera?
        if let depthDevice {
            let described: CameraDevice
            do {
                described = try V4L2Query.describe(depthDevice)
            } catch {
                throw CaptureStartFailure.report("camlib: --depth-device: \(error)")
            }
            guard described.isDepth else {
                throw CaptureStartFailure.report("camlib: --depth-device \(depthDevice) is not a depth camera (it offers \(described.formats.map(\.fourCC).joined(separator: ", ")), no Z16)")
            }
            depthCamera = DepthCamera(path: depthDevice)
            // Depth from the device; the portrait matte derived from it.
            offered = Array(Set(offered + ["depth", "portraitMatte"])).sorted()
        }
        let missing = requestedAuxiliary.filter { !offered.contains($0.rawValue) }
        if !missing.isEmpty {
            let offered = offered.isEmpty ? "nothing beside colour" : offered.joined(separator: ", ")
            throw CaptureStartFailure.report(
                "camlib: \(cameraID)\(depthDevice.map { " with " + $0 } ?? "") cannot deliver \(missing.map(\.rawValue).joined(separator: ", ")); it delivers \(offered) (see `camlib devices`)")
        }

        // Captures an interrupted camlib left behind are imported with this one's.
        let leftovers = library.abandonedCaptureFiles()
        let staging = try library.newCaptureStaging()
        let reporter = EventReporter(json: events)
        let largest = camera.device.largestSize ?? FrameSize(width: 1920, height: 1440)
        let wanted = CameraConfiguration(size: size.flatMap(FrameSize.init) ?? largest, frameRate: fps ?? defaultRate(camera.device))
        let session = CaptureSession(source: camera, configuration: wanted, outputDirectory: staging.path) { reporter.report($0) }
        if live { session.livePhotoCodec = codec }
        session.depthCamera = depthCamera
        if !noAudio && (movie || live || interactive) { session.audioSource = Self.microphone(for: camera) }
        try startWaitingIfBusy(session, cameraID)
        if let problem = session.audioProblem { reporter.note("camlib: recording without sound: \(problem)") }
        // Remembered only once it has worked: a camera that fails is not the next default.
        if device != nil { try library.setPreference("capture.device", cameraID) }
        reporter.note("camera \(cameraID): \(session.configuration.size) at \(Self.rate(session.configuration.frameRate)) fps")

        let stop = StopFlag()
        let signals = StopSignals { stop.set() }
        defer { withExtendedLifetime(signals) {} }

        if interactive {
            reporter.overStatusLine = true
            try InteractiveCapture(session: session, settings: photoSettings, codec: codec, stop: stop).run()
        } else if movie {
            try recordMovie(session, stop: stop)
        } else {
            takePhotos(session, stop: stop)
        }
        let outcome = session.stop()

        let (imported, assetIDs) = importStaged(library: library, staging: staging, leftovers: leftovers)
        for failure in outcome.failures { Terminal.error("camlib: \(failure)") }
        if output.json { AssetListPrinter.printAll(try library.describe(assetIDs)) }
        if let error = outcome.streamError {
            Terminal.error("camlib: \(error); the \(outcome.results.count) capture(s) taken before were saved")
            throw ExitCode.failure
        }
        if !outcome.failures.isEmpty || !imported { throw ExitCode(ExitStatus.partialFailure) }
        if stop.isSet, !movie, !interactive { throw ExitCode(ExitStatus.interrupted) }
    }

    func defaultRate(_ device: CameraDevice) -> Double {
        let rates = device.formats.flatMap(\.sizes).flatMap(\.frameRates)
        return rates.filter { $0 <= 30.5 }.max() ?? rates.max() ?? 30
    }

    static func rate(_ r: Double) -> String { r == r.rounded() ? String(Int(r)) : String(format: "%.2f", r) }

    /// Starts the session; with --wait, a busy camera is retried every second.
    func startWaitingIfBusy(_ session: CaptureSession, _ id: String) throws {
        var told = false
        while true {
            do {
                try session.start()
                return
            } catch CaptureError.busy(let device) where wait {
                if !told { Terminal.error("camlib: \(device) is busy (another program holds it); waiting for it, Ctrl-C to give up") }
                told = true
                sleep(1)
            } catch {
                throw CaptureStartFailure.report("camlib: \(error)")
            }
        }
    }

    func takePhotos(_ session: CaptureSession, stop: StopFlag) {
        let settings = photoSettings
        if live {
            // The ring needs its 1.5 s of frames before the first shutter, as a phone's
            // camera has been running before the button is pressed.
            while session.now < CaptureSession.livePhotoPreRoll + 0.05 && !stop.isSet && session.isStreaming { usleep(5000) }
        }
        for n in 0..<count {
            if stop.isSet || !session.isStreaming { break }
            let shutter = session.now
            session.capturePhoto(settings)
            if n + 1 < count {
                while session.now < shutter + interval && !stop.isSet { usleep(2000) }
            }
        }
        session.waitForPhotos()
    }

    func recordMovie(_ session: CaptureSession, stop: StopFlag) throws {
        let begin = session.now
        try session.startRecording(
            codec: codec, orientation: orientation.flatMap { EXIFOrientation(rawValue: $0) },
            maximumDuration: duration)
        var photoTimes = photoAt.flatMap(parseTimes) ?? []
        var settings = photoSettings
        settings.quality = .speed  // a photo during a movie is the movie's frame, as on a phone
        settings.livePhoto = false
        while !stop.isSet && session.isStreaming {
            let t = session.now - begin
            // The movie holds --duration of the camera's frames, however late this wakes.
            if session.hasRecordedItsDuration { break }
            while let next = photoTimes.first, next <= t {
                photoTimes.removeFirst()
                session.capturePhoto(settings)
            }
            usleep(2000)
        }
        session.stopRecording()
        session.waitForPhotos()
    }

    /// Imports what the session wrote (and what an interrupted capture left); removes
    /// each file once the library holds it. False when some could not be imported.
    /// Imports what the capture wrote; whether all of it went in, and the assets it made.
    /// Imports what the capture staged (``PhotoLibrary/importCaptures(from:leftovers:options:)``)
    /// and says what happened on stderr: whether everything went in, and the asset ids.
    func importStaged(library: PhotoLibrary, staging: URL, leftovers: [String]) -> (Bool, [Int64]) {
        if !leftovers.isEmpty { Terminal.error("camlib: importing \(leftovers.count) file(s) an interrupted capture left") }
        do {
            let outcome = try library.importCaptures(
                from: staging, leftovers: leftovers, options: ImportOptions(isolation: .workerProcesses(AnalysisWorkers())))
            guard let report = outcome.report else { return (true, []) }
            for e in report.errors { Terminal.error("camlib: \(e.path): not imported: \(e.message) (the file stays in \(staging.path))") }
            let ids = report.assetIDs.map(String.init).joined(separator: ", ")
            Terminal.error("camlib: \(report.imported) file(s) imported into \(report.library)" + (ids.isEmpty ? "" : " as asset(s) \(ids)"))
            return (outcome.succeeded, report.assetIDs)
        } catch {
            Terminal.error("camlib: the captures could not be imported: \(error) (they stay in \(staging.path))")
            return (false, [])
        }
    }
}

extension CaptureCommand: JSONDescribed {
    static let jsonFields = "the captured assets when done, as `query --json` describes them"
}
