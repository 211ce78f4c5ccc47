import Codecs
import Containers
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
/// `@unchecked Sendable`: state the pump, sound, processing and caller threads share is under `lock`; the camera and the microphone are each used by one thread.
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
    /// Seconds of movie a Live Photo keeps before its shutter.
    public static let livePhotoPreRoll = LivePhotoRecorder.before
    /// A depth camera paired with the colour one (set before `start()`): photos asking for
    /// depth or a portrait matte take its newest frame.
    public var depthCamera: DepthCamera?
    /// Set before `start()` to take Live Photos: frames are then encoded continuously
    /// (with this codec) into a ring from which each Live Photo's movie is cut.
    public var livePhotoCodec: MovieWriter.Codec?
    /// Set before `start()`: the microphone heard in movies and Live Photos (AAC). One
    /// that cannot start leaves the session silent, `audioProblem` saying why.
    public var audioSource: (any AudioSource)?
    /// Why the session records without sound although it was given a microphone.
    public private(set) var audioProblem: String?

    private let source: FrameSource
    private let onEvent: @Sendable (CaptureEvent) -> Void
    private let lock = NSLock()
    private let processing = DispatchQueue(label: "camlib.photo-processing", attributes: .concurrent)
    private let processingGroup = DispatchGroup()
    private let pumpFinished = DispatchSemaphore(value: 0)
    private let audioPumpFinished = DispatchSemaphore(value: 0)
    /// The microphone being read (the session's source once it has started).
    private var hearing: (any AudioSource)?
    private var stopRequested = false
    private var running = false
    private var nextID = 1
    private var pending: [PendingPhoto] = []
    private var recorder: (id: Int, recorder: MovieRecorder)?
    private var live: LivePhotoRecorder?
    /// Parts of each capture still being made (a Live Photo has two: still and movie).
    private var partsLeft: [Int: Int] = [:]
    private var livePhotosInProgress = 0
    private var results: [Result] = []
    private var failures: [Failure] = []
    private var streamError: Error?
    private var streamEnded = false
    private var clock = Pacer()
    private var startDate = Date()
    /// Tells apart the files of sessions started in the same second.
    private let sessionTag = String(format: "%04X", UInt16.random(in: 0...UInt16.max))
    private var lastFrameTime: Double = 0
    // System pressure bookkeeping.
    private var windowStart: Double = 0
    private var windowFrames = 0
    private var windowDrops = 0
    private var lastPressureChange: Double = -10
    /// A held last frame (a file camera past its end) was reported once with didEndStream.
    private var endAnnounced = false

    struct PendingPhoto {
        var id: Int
        var settings: PhotoSettings
        var frames: [Frame] = []
        /// A Live Photo's content identifier, shared by its still and movie.
        var identifier: String?
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
        if let depthCamera {
            do {
                try depthCamera.start(size: configuration.size, frameRate: configuration.frameRate)
            } catch {
                source.stop()
                throw error
            }
        }
        if let codec = livePhotoCodec {
            var settings = MovieWriter.Settings(codec: codec, width: configuration.size.width, height: configuration.size.height)
            settings.frameRate = configuration.frameRate
            // A keyframe every half second: a Live Photo's movie starts at most that much
            // before its 1.5 s of pre-roll.
            settings.keyframeInterval = max(1, Int((configuration.frameRate / 2).rounded()))
            settings.maximumBitRate = Self.bitRateCap(codec: codec, size: configuration.size, frameRate: configuration.frameRate)
            settings.audioSampleRate = audioSource?.sampleRate
            do {
                live = try LivePhotoRecorder(settings: settings)
            } catch {
                depthCamera?.stop()
                source.stop()
                throw CaptureError.failed("cannot encode Live Photo movies: \(error)")
            }
        }
        clock.start()
        startDate = Date()
        lock.withLock {
            running = true
            stopRequested = false
        }
        let thread = Thread { [self] in runPump() }
        thread.name = "camlib.capture"
        thread.qualityOfService = .userInteractive
        thread.start()
        if let audioSource {
            do {
                try audioSource.start()
                hearing = audioSource
                let listener = Thread { [self] in runAudioPump() }
                listener.name = "camlib.audio"
                listener.qualityOfService = .userInteractive
                listener.start()
            } catch {
                audioProblem = "\(error)"
            }
        }
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
        emit(.willBeginCapture, id: id)
        if settings.livePhoto && live == nil {
            fail(id, "Live Photos need a session started with Live Photos on (capture --live)")
            return id
        }
        let accepted = lock.withLock { () -> Bool in
            guard running, !streamEnded else { return false }
            let identifier = settings.livePhoto ? UUID().uuidString : nil
            pending.append(PendingPhoto(id: id, settings: settings, identifier: identifier))
            // Every part (still, Live Photo movie) holds the processing group until it is
            // written or has failed, so waiting for photos has no gap to slip through.
            partsLeft[id] = settings.livePhoto ? 2 : 1
            for _ in 0..<partsLeft[id]! { processingGroup.enter() }
            if settings.livePhoto { livePhotosInProgress += 1 }
            return true
        }
        if !accepted {
            fail(id, "the camera is not delivering frames (\(streamError.map { "\($0)" } ?? "stopped"))")
        }
        return id
    }

    /// Starts a movie (HEVC or H.264) at the session's size; returns its id. With a
    /// `maximumDuration` (seconds of the camera's clock) the movie holds no frame past it,
    /// and `hasRecordedItsDuration` turns true once the camera has gone past it; the
    /// movie is finished by `stopRecording()` as always.
    @discardableResult
    public func startRecording(codec: MovieWriter.Codec = .h264, orientation: EXIFOrientation? = nil, maximumDuration: Double? = nil) throws -> Int {
        let id = lock.withLock { () -> Int in
            let id = nextID
            nextID += 1
            return id
        }
        guard lock.withLock({ running && recorder == nil && !streamEnded }) else {
            throw CaptureError.failed("cannot record: the session is not running or already recording")
        }
        let begins = lock.withLock { lastFrameTime }
        let settings = movieSettings(codec: codec, orientation: orientation, begins: begins)
        let path = outputDirectory + "/" + fileStem(id: id) + ".MOV"
        let movie = try MovieRecorder(path: path, settings: settings, maximumDuration: maximumDuration)
        lock.withLock { recorder = (id, movie) }
        emit(.didStartRecording, id: id, path: path)
        return id
    }

    public var isRecording: Bool { lock.withLock { recorder != nil } }

    /// Whether the movie being recorded has reached its `maximumDuration`: the camera has
    /// delivered a frame at or past its end.
    public var hasRecordedItsDuration: Bool {
        lock.withLock { recorder.map { $0.recorder.isPastEnd(lastFrameTime) } ?? false }
    }

    /// Sensor noise is detail to an encoder: at constant quality a noisy 1920x1440 scene
    /// took 34 Mbit/s in H.264, five times an iPhone's Live Photo movie. Captured movies
    /// are capped near a phone's rate for their size: 0.2 bits per pixel per frame in
    /// H.264 (17 Mbit/s at 1920x1440, 30 fps), 0.12 in HEVC.
    static func bitRateCap(codec: MovieWriter.Codec, size: FrameSize, frameRate: Double) -> Int {
        Int(Double(size.pixels) * frameRate * (codec == .hevc ? 0.12 : 0.2))
    }

    /// A movie's encoding settings and metadata: the session's size and rate, the
    /// orientation, creation time (`begins`: seconds on the camera clock) and Apple's keys.
    /// A Live Photo's movie gives `still`, the moment of its still, as its
    /// `com.apple.quicktime.creationdate`, as an iPhone's does.
    func movieSettings(codec: MovieWriter.Codec, orientation: EXIFOrientation?, begins seconds: Double, still: Double? = nil) -> MovieWriter.Settings {
        var settings = MovieWriter.Settings(codec: codec, width: configuration.size.width, height: configuration.size.height)
        settings.frameRate = configuration.frameRate
        settings.maximumBitRate = Self.bitRateCap(codec: codec, size: configuration.size, frameRate: configuration.frameRate)
        settings.orientation = orientation ?? source.naturalOrientation
        settings.audioSampleRate = hearing?.sampleRate
        let begins = startDate.addingTimeInterval(seconds)
        settings.creationTime = begins
        // com.apple.quicktime.creationdate is local time with its offset, as iPhones write.
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        settings.quickTimeKeys = [
            ("com.apple.quicktime.make", make), ("com.apple.quicktime.model", model),
            ("com.apple.quicktime.software", "camlib"), ("com.apple.quicktime.creationdate", local.string(from: still.map { startDate.addingTimeInterval($0) } ?? begins)),
        ]
        return settings
    }

    /// Finishes the movie: every queued frame is encoded, the file is complete and renamed.
    public func stopRecording() {
        guard let (id, movie) = lock.withLock({ () -> (Int, MovieRecorder)? in
            defer { recorder = nil }
            return recorder.map { ($0.id, $0.recorder) }
        }) else { return }
        do {
            let (path, frames) = try movie.finish()
            lock.withLock { results.append(Result(id: id, kind: .movie, path: path)) }
            emit(.didFinishRecording, id: id, path: path, message: "\(frames) frames" + (movie.dropped > 0 ? ", \(movie.dropped) dropped" : ""))
            emit(.didFinishCapture, id: id)
        } catch {
            fail(id, "\(error)", file: movie.finalPath)
        }
    }

    /// Whether the camera still delivers frames (a file camera ends; a device can vanish).
    public var isStreaming: Bool { lock.withLock { running && !streamEnded } }

    /// Stops the camera after finishing every capture in progress; returns what was
    /// written. Photos still waiting for frames are made from the frames they have.
    @discardableResult
    public func stop() -> (results: [Result], failures: [Failure], streamError: Error?) {
        let wasRunning = lock.withLock { () -> Bool in
            let r = running
            stopRequested = true
            return r
        }
        if wasRunning { pumpFinished.wait() }
        if wasRunning, hearing != nil { audioPumpFinished.wait() }
        stopRecording()
        live?.finish()
        processingGroup.wait()
        return lock.withLock { (results, failures, streamError) }
    }

    /// Waits until every photo requested so far (and its Live Photo movie) has been
    /// written or has failed. The camera must keep running meanwhile.
    public func waitForPhotos() {
        processingGroup.wait()
    }

    // MARK: the sound pump

    /// Reads the microphone until the session stops, handing each chunk to the movie being
    /// recorded and to the Live Photo ring. A microphone that fails leaves the rest silent.
    private func runAudioPump() {
        defer { audioPumpFinished.signal() }
        guard let microphone = hearing else { return }
        defer { microphone.stop() }
        while !lock.withLock({ stopRequested }) {
            let chunk: AudioChunk?
            do {
                chunk = try microphone.read()
            } catch {
                emit(.error, id: nil, message: "\(microphone.name) microphone: \(error); the rest is silent")
                return
            }
            guard let chunk else { return }
            let (movie, live) = lock.withLock { (recorder?.recorder, self.live) }
            movie?.appendAudio(chunk)
            live?.appendAudio(chunk)
        }
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
                    let (error, stopped) = lock.withLock { (streamError, stopRequested) }
                    let why = error.map { "\($0)" } ?? (stopped ? "the capture was stopped" : "\(source.device.id) has no more frames")
                    fail(photo.id, "no frame for the photo: \(why)")
                } else {
                    process(photo)
                }
            }
            // Live Photo movies waiting for frames get what there is.
            live?.finish()
            depthCamera?.stop()
            source.stop()
            pumpFinished.signal()
        }
        while !lock.withLock({ stopRequested }) {
            let frame: Frame?
            do {
                frame = try source.nextFrame()
            } catch {
                lock.withLock { streamError = error }
                emit(.error, id: nil, message: "\(error)")
                return
            }
            guard let frame else {
                emit(.didEndStream, id: nil, message: "the camera has no more frames")
                return
            }
            if frame.heldAfterEnd, !endAnnounced {
                endAnnounced = true
                emit(.didEndStream, id: nil, message: "\(source.device.id) ended at \(String(format: "%.2f", frame.time)) s; its last frame is held")
            }
            deliver(frame)
        }
    }

    private func deliver(_ frame: Frame) {
        var frame = frame
        // A photo about to start that wants depth or mattes gets the scene's truth now,
        // while the camera still knows this moment.
        if frame.scene == nil, lock.withLock({ pending.first { $0.frames.isEmpty }?.settings.auxiliary.isEmpty == false }) {
            frame.scene = depthCamera?.truth(size: configuration.size) ?? source.sceneTruth(for: frame)
        }
        let (ready, newlyStarted, movie) = lock.withLock { () -> ([PendingPhoto], [PendingPhoto], MovieRecorder?) in
            lastFrameTime = frame.time
            var ready: [PendingPhoto] = []
            var started: [PendingPhoto] = []
            // Each photo has its own shutter frame: one photo starts per frame, in order;
            // photos already started take this frame for merging.
            var startedOne = false
            for i in pending.indices {
                if pending[i].frames.isEmpty {
                    if startedOne { continue }
                    startedOne = true
                    started.append(pending[i])
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
        for photo in newlyStarted {
            emit(.willCapturePhoto, id: photo.id)
            if photo.identifier != nil { startLivePhotoMovie(photo, shutter: frame) }
        }
        var dropped = false
        if let movie { dropped = !movie.append(frame) }
        if let live, !live.append(frame) { dropped = true }
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
            .systemPressure, id: nil, frameRate: applied,
            message: "\(Int(dropRate * 100))% of frames were dropped in the last second: frame rate lowered to \(Int(applied)) fps")
    }

    // MARK: Live Photo movies

    private func startLivePhotoMovie(_ photo: PendingPhoto, shutter: Frame) {
        guard let live, let identifier = photo.identifier else { return }
        let id = photo.id
        let path = outputDirectory + "/" + fileStem(id: id) + ".MOV"
        let settings = movieSettings(
            codec: live.encoderCodec, orientation: photo.settings.orientation, begins: max(0, shutter.time - LivePhotoRecorder.before),
            still: shutter.time)
        live.request(
            id: id, shutterTime: shutter.time, identifier: identifier, path: path, settings: settings,
            recorded: { [self] frames in
                let inProgress = lock.withLock { livePhotosInProgress }
                emit(.didFinishRecordingLivePhotoMovie, id: id, message: "\(frames) frames", livePhotosInProgress: inProgress)
            },
            done: { [self] result in
                switch result {
                case .success(let path):
                    let inProgress = lock.withLock { () -> Int in
                        results.append(Result(id: id, kind: .movie, path: path))
                        livePhotosInProgress -= 1
                        return livePhotosInProgress
                    }
                    emit(.didFinishProcessingLivePhotoMovie, id: id, path: path, livePhotosInProgress: inProgress)
                    finishPart(id)
                case .failure(let error):
                    lock.withLock { livePhotosInProgress -= 1 }
                    fail(id, "the Live Photo's movie: \(error)", file: path, finished: false)
                    finishPart(id)
                }
            })
    }

    /// One part of a capture is done; when none is left, `didFinishCapture`.
    private func finishPart(_ id: Int) {
        let (held, done) = lock.withLock { () -> (Bool, Bool) in
            guard let parts = partsLeft[id] else { return (false, false) }
            partsLeft[id] = parts > 1 ? parts - 1 : nil
            return (true, parts <= 1)
        }
        if done { emit(.didFinishCapture, id: id) }
        if held { processingGroup.leave() }
    }

    // MARK: photo processing

    private func process(_ photo: PendingPhoto) {
        processing.async { [self] in
            let path = outputDirectory + "/" + fileStem(id: photo.id) + "." + photo.settings.format.fileExtension
            do {
                let shutter = photo.frames[0]
                let merged = FrameMerger.merge(photo.frames.map(\.pixels))
                var metadata = PhotoEncoder.Metadata(model: model, captureDate: startDate.addingTimeInterval(shutter.time))
                metadata.make = make
                metadata.orientation = photo.settings.orientation ?? source.naturalOrientation
                if let identifier = photo.identifier {
                    metadata.extraExif = [(0x927C, .undefined(AppleMakerNote.bytes(contentIdentifier: identifier)))]
                }
                var bytes = try PhotoEncoder.encode(merged, format: photo.settings.format, metadata: metadata)
                if !photo.settings.auxiliary.isEmpty {
                    guard photo.settings.format == .heic else { throw CaptureError.unsupported("depth and mattes need HEIC (--format heic)") }
                    guard let truth = shutter.scene else {
                        let why = depthCamera?.error.map { ": \($0)" } ?? ""
                        throw CaptureError.unsupported("\(depthCamera?.path ?? source.device.id) delivered no depth or mattes for this frame\(why)")
                    }
                    bytes = try AuxiliaryCapture.attach(photo.settings.auxiliary, from: truth, orientation: metadata.orientation, to: bytes)
                }
                try CaptureFiles.write(bytes, to: path)
                lock.withLock { results.append(Result(id: photo.id, kind: .photo, path: path)) }
                emit(.didFinishProcessingPhoto, id: photo.id, path: path)
                finishPart(photo.id)
            } catch {
                fail(photo.id, "\(error)", file: path, finished: false)
                finishPart(photo.id)
            }
        }
    }

    private func fileStem(id: Int) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd_HHmmss"
        return "CAM_\(f.string(from: startDate))_\(sessionTag)_\(String(format: "%03d", id))"
    }

    /// Records a failure; `file`: the path it was to be written to; `finished`: the
    /// capture has no other part to wait for.
    private func fail(_ id: Int, _ message: String, file: String? = nil, finished: Bool = true) {
        let failure = Failure(capture: id, file: file.map { URL(fileURLWithPath: $0).lastPathComponent }, reason: message)
        lock.withLock { failures.append(failure) }
        emit(.error, id: id, message: message)
        if finished {
            let held = lock.withLock { () -> Int in
                defer { partsLeft[id] = nil }
                return partsLeft[id] ?? 0
            }
            emit(.didFinishCapture, id: id)
            for _ in 0..<held { processingGroup.leave() }
        }
    }

    private func emit(
        _ name: CaptureEvent.Kind, id: Int?, path: String? = nil, frameRate: Double? = nil, message: String? = nil, livePhotosInProgress: Int? = nil
    ) {
        var event = CaptureEvent(event: name, id: id, time: clock.elapsed, path: path, frameRate: frameRate, message: message)
        event.livePhotosInProgress = livePhotosInProgress
        onEvent(event)
    }
}
