import Codecs
import Dispatch
import Foundation
import Imaging

/// What AVCaptureSession is to AVCam: the one owner of a camera while it runs. It pulls
/// frames on its own thread and hands them to the outputs: photo requests (each takes the
/// next frame as its shutter moment, plus more for merging, and is processed on a
/// concurrent queue, so the shutter returns at once and captures overlap) and a movie
/// recording. It reports progress as `CaptureEvent`s, lowers the frame rate when the
/// machine cannot keep up, and when the camera fails mid-capture it still finishes
/// everything captured so far.
public final class CaptureSession: @unchecked Sendable {
    public struct Result: Sendable, Equatable {
        public enum Kind: String, Sendable { case photo, movie }
        public var id: Int
        public var kind: Kind
        public var path: String
    }

    public let outputDirectory: String
    /// The camera's maker and name for Exif Make and Model.
    public let make: String
    public let model: String
    public private(set) var configuration: CameraConfiguration
    /// Never lower the frame rate below this under pressure.
    public var minimumFrameRate: Double = 5

    private let source: FrameSource
    private let onEvent: @Sendable (CaptureEvent) -> Void
    private let lock = NSLock()
    private let processing = DispatchQueue(label: "camlib.photo-processing", attributes: .concurrent)
    private let processingGroup = DispatchGroup()
    private var pump: Thread?
    private let pumpFinished = DispatchSemaphore(value: 0)
    private var stopRequested = false
    private var running = false
    private var nextID = 1
    private var pending: [PendingPhoto] = []
    private var recorder: (id: Int, recorder: MovieRecorder)?
    private var results: [Result] = []
    private var failures: [String] = []
    private var streamError: Error?
    private var streamEnded = false
    private var clock = Pacer()
    private var startDate = Date()
    /// Tells apart the files of sessions started in the same second.
    private let sessionTag = String(format: "%04X", UInt16.random(in: 0...UInt16.max))
    private var lastFrameTime: Double = 0
    private var latestFrameSize: FrameSize?
    private var framesDelivered = 0
    // System pressure bookkeeping.
    private var windowStart: Double = 0
    private var windowFrames = 0
    private var windowDrops = 0
    private var lastPressureChange: Double = -10

    struct PendingPhoto {
        var id: Int
        var settings: PhotoSettings
        var frames: [Frame] = []
    }

    public init(
        source: FrameSource, configuration: CameraConfiguration, outputDirectory: String, model: String? = nil,
        onEvent: @escaping @Sendable (CaptureEvent) -> Void = { _ in }
    ) {
        self.source = source
        self.configuration = configuration
        self.outputDirectory = outputDirectory
        self.model = model ?? source.device.name
        self.make = source.device.kind == .v4l2 ? (source.device.driver ?? "camlib") : "camlib"
        self.onEvent = onEvent
    }

    /// Seconds since `start()`.
    public var now: Double { clock.elapsed }

    /// Opens the camera with the configuration (the nearest it supports) and starts frames.
    public func start() throws {
        try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        configuration = try source.start(configuration)
        clock.start()
        startDate = Date()
        lock.withLock {
            running = true
            stopRequested = false
        }
        let thread = Thread { [self] in runPump() }
        thread.name = "camlib.capture"
        thread.qualityOfService = .userInteractive
        pump = thread
        thread.start()
    }

    /// Takes a photo: the next frame is its shutter moment. Returns its id at once;
    /// `didFinishProcessingPhoto` reports the file.
    @discardableResult
    public func capturePhoto(_ settings: PhotoSettings = PhotoSettings()) -> Int {
        let id = lock.withLock { () -> Int in
            let id = nextID
            nextID += 1
            return id
        }
        emit("willBeginCapture", id: id)
        let accepted = lock.withLock { () -> Bool in
            guard running, !streamEnded else { return false }
            pending.append(PendingPhoto(id: id, settings: settings))
            return true
        }
        if !accepted {
            fail(id, "the camera is not delivering frames (\(streamError.map { "\($0)" } ?? "stopped"))")
        }
        return id
    }

    /// Starts a movie (HEVC or H.264) at the session's size; returns its id.
    @discardableResult
    public func startRecording(codec: MovieWriter.Codec = .h264, orientation: EXIFOrientation? = nil) throws -> Int {
        let id = lock.withLock { () -> Int in
            let id = nextID
            nextID += 1
            return id
        }
        guard lock.withLock({ running && recorder == nil && !streamEnded }) else {
            throw CaptureError.failed("cannot record: the session is not running or already recording")
        }
        var settings = MovieWriter.Settings(codec: codec, width: configuration.size.width, height: configuration.size.height)
        settings.frameRate = configuration.frameRate
        settings.orientation = orientation ?? source.naturalOrientation
        let begins = startDate.addingTimeInterval(lock.withLock { lastFrameTime })
        settings.creationTime = begins
        // com.apple.quicktime.creationdate is local time with its offset, as iPhones write.
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        settings.quickTimeKeys = [
            ("com.apple.quicktime.make", make), ("com.apple.quicktime.model", model),
            ("com.apple.quicktime.software", "camlib"), ("com.apple.quicktime.creationdate", local.string(from: begins)),
        ]
        let path = outputDirectory + "/" + fileStem(id: id) + ".MOV"
        let movie = try MovieRecorder(path: path, settings: settings, startTime: lock.withLock { lastFrameTime })
        lock.withLock { recorder = (id, movie) }
        emit("didStartRecording", id: id, path: path)
        return id
    }

    public var isRecording: Bool { lock.withLock { recorder != nil } }

    /// Finishes the movie: every queued frame is encoded, the file is complete and renamed.
    public func stopRecording() {
        guard let (id, movie) = lock.withLock({ () -> (Int, MovieRecorder)? in
            defer { recorder = nil }
            return recorder.map { ($0.id, $0.recorder) }
        }) else { return }
        do {
            let (path, frames) = try movie.finish()
            lock.withLock { results.append(Result(id: id, kind: .movie, path: path)) }
            emit("didFinishRecording", id: id, path: path, message: "\(frames) frames" + (movie.dropped > 0 ? ", \(movie.dropped) dropped" : ""))
            emit("didFinishCapture", id: id)
        } catch {
            fail(id, "\(error)")
        }
    }

    /// Whether the camera still delivers frames (a file camera ends; a device can vanish).
    public var isStreaming: Bool { lock.withLock { running && !streamEnded } }

    /// Stops the camera after finishing every capture in progress; returns what was
    /// written. Photos still waiting for frames are made from the frames they have.
    @discardableResult
    public func stop() -> (results: [Result], failures: [String], streamError: Error?) {
        let wasRunning = lock.withLock { () -> Bool in
            let r = running
            stopRequested = true
            return r
        }
        if wasRunning { pumpFinished.wait() }
        stopRecording()
        processingGroup.wait()
        return lock.withLock { (results, failures, streamError) }
    }

    /// Waits until every photo requested so far has been written (or failed).
    public func waitForPhotos() {
        while lock.withLock({ !pending.isEmpty && running && !streamEnded }) { usleep(2000) }
        processingGroup.wait()
    }

    // MARK: the frame pump

    private func runPump() {
        defer {
            // Whatever the camera did, photos waiting for frames use the ones they have.
            let left = lock.withLock { () -> [PendingPhoto] in
                let l = pending
                pending = []
                streamEnded = true
                running = false
                return l
            }
            for photo in left {
                if photo.frames.isEmpty {
                    fail(photo.id, "the camera stopped before the photo's frame")
                } else {
                    process(photo)
                }
            }
            source.stop()
            pumpFinished.signal()
        }
        while !lock.withLock({ stopRequested }) {
            let frame: Frame?
            do {
                frame = try source.nextFrame()
            } catch {
                lock.withLock { streamError = error }
                emit("error", id: nil, message: "\(error)")
                return
            }
            guard let frame else {
                emit("didEndStream", id: nil, message: "the camera has no more frames")
                return
            }
            deliver(frame)
        }
    }

    private func deliver(_ frame: Frame) {
        let (ready, newlyStarted, movie) = lock.withLock { () -> ([PendingPhoto], [Int], MovieRecorder?) in
            lastFrameTime = frame.time
            framesDelivered += 1
            var ready: [PendingPhoto] = []
            var started: [Int] = []
            // Each photo has its own shutter frame: one photo starts per frame, in order;
            // photos already started take this frame for merging.
            var startedOne = false
            for i in pending.indices {
                if pending[i].frames.isEmpty {
                    if startedOne { continue }
                    startedOne = true
                    started.append(pending[i].id)
                }
                pending[i].frames.append(frame)
            }
            pending.removeAll { p in
                if p.frames.count >= p.settings.quality.frameCount {
                    ready.append(p)
                    return true
                }
                return false
            }
            return (ready, started, recorder?.recorder)
        }
        for id in newlyStarted { emit("willCapturePhoto", id: id) }
        var dropped = false
        if let movie { dropped = !movie.append(frame) }
        for photo in ready { process(photo) }
        checkPressure(frame: frame, dropped: dropped)
    }

    /// AVCam's system-pressure rule: when frames are dropped (the camera's because nobody
    /// read them in time, or the movie encoder's because it fell behind), lower the frame
    /// rate by a third and say so.
    private func checkPressure(frame: Frame, dropped: Bool) {
        let t = clock.elapsed
        windowFrames += 1 + frame.droppedBefore
        windowDrops += frame.droppedBefore + (dropped ? 1 : 0)
        guard t - windowStart >= 1 else { return }
        let dropRate = Double(windowDrops) / Double(max(1, windowFrames))
        let drops = windowDrops
        windowStart = t
        windowFrames = 0
        windowDrops = 0
        guard dropRate > 0.1, drops >= 3, t - lastPressureChange >= 2, configuration.frameRate > minimumFrameRate else { return }
        let target = max(minimumFrameRate, (configuration.frameRate * 2 / 3).rounded())
        guard let applied = try? source.setFrameRate(target) else { return }
        lastPressureChange = t
        configuration.frameRate = applied
        emit(
            "systemPressure", id: nil, frameRate: applied,
            message: "\(Int(dropRate * 100))% of frames were dropped in the last second: frame rate lowered to \(Int(applied)) fps")
    }

    // MARK: photo processing

    private func process(_ photo: PendingPhoto) {
        processingGroup.enter()
        processing.async { [self] in
            defer { processingGroup.leave() }
            do {
                let shutter = photo.frames[0]
                let merged = FrameMerger.merge(photo.frames.map(\.pixels))
                var metadata = PhotoEncoder.Metadata(model: model, captureDate: startDate.addingTimeInterval(shutter.time))
                metadata.make = make
                metadata.orientation = photo.settings.orientation ?? source.naturalOrientation
                let bytes = try PhotoEncoder.encode(merged, format: photo.settings.format, metadata: metadata)
                let path = outputDirectory + "/" + fileStem(id: photo.id) + "." + photo.settings.format.fileExtension
                try Self.writeAtomically(bytes, to: path)
                lock.withLock { results.append(Result(id: photo.id, kind: .photo, path: path)) }
                emit("didFinishProcessingPhoto", id: photo.id, path: path)
                emit("didFinishCapture", id: photo.id)
            } catch {
                fail(photo.id, "\(error)")
            }
        }
    }

    private func fileStem(id: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd_HHmmss"
        return "CAM_\(f.string(from: startDate))_\(sessionTag)_\(String(format: "%03d", id))"
    }

    /// Temp file, fsync, rename: a reader sees the whole photo or none.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let part = path + ".part"
        let fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CaptureError.failed("\(path): cannot write: \(String(cString: strerror(errno)))") }
        var ok = true
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    ok = false
                    return
                }
                offset += n
            }
        }
        let code = errno
        if ok { ok = fsync(fd) == 0 }
        close(fd)
        // link, not rename: an existing file of that name is never replaced.
        guard ok, link(part, path) == 0 else {
            let reason = String(cString: strerror(ok ? errno : code))
            unlink(part)
            throw CaptureError.failed("\(path): cannot write: \(reason)")
        }
        unlink(part)
    }

    private func fail(_ id: Int, _ message: String) {
        lock.withLock { failures.append("capture \(id): \(message)") }
        emit("error", id: id, message: message)
        emit("didFinishCapture", id: id)
    }

    private func emit(_ name: String, id: Int?, path: String? = nil, frameRate: Double? = nil, message: String? = nil) {
        onEvent(CaptureEvent(event: name, id: id, time: clock.elapsed, path: path, frameRate: frameRate, message: message))
    }
}
