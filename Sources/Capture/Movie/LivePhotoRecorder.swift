import Codecs
import Containers
import Foundation
import Imaging

/// The movie half of Live Photos: every frame is encoded as it arrives (keyframes every
/// half second, no B-frames) into a ring holding the last few seconds of packets, so a
/// shutter at time T gets a movie from about T - 1.5 s (the keyframe at or before it) to
/// T + 1.5 s without keeping raw frames. When the packets after T are in, the span is
/// muxed into a MOV with the content identifier key and Apple's still-image-time track at
/// T, written as `.part` and renamed. Several Live Photos may be in progress at once.
/// `@unchecked Sendable`: the encoders, rings and requests are touched only by work on `work`, its serial queue.
final class LivePhotoRecorder: @unchecked Sendable {
    static let before = 1.5
    static let after = 1.5

    struct Request {
        var id: Int
        var shutter: Int64  // pts of the still's frame
        var identifier: String
        var path: String
        var settings: MovieWriter.Settings
        var recorded: @Sendable (Int) -> Void
        var done: @Sendable (Result<String, Error>) -> Void
    }

    private let work = EncoderQueue(label: "camlib.live-photo")
    // Used on the queue only.
    private let encoder: VideoEncoder
    private var ring: [VideoEncoder.Packet] = []
    /// The sound, encoded as it comes, stamped in samples on the camera's clock.
    private let audioEncoder: AudioEncoder?
    private var audioRing: [AudioEncoder.Packet] = []
    private var requests: [Request] = []

    /// `settings.audioSampleRate`: Live Photos with sound (every iPhone's has it).
    init(settings: MovieWriter.Settings) throws {
        encoder = try VideoEncoder(settings: settings)
        audioEncoder = try settings.audioSampleRate.map { try AudioEncoder(sampleRate: $0) }
    }

    /// Queues sound heard at `chunk.time` (camera clock) for encoding into the sound ring.
    func appendAudio(_ chunk: AudioChunk) {
        guard let rate = audioEncoder?.sampleRate else { return }
        let pts = Int64((chunk.time * Double(rate)).rounded())
        work.submitAlways { [self] in audioRing += try self.audioEncoder?.encode(chunk.samples, pts: pts) ?? [] }
    }

    var encoderCodec: MovieWriter.Codec { encoder.settings.codec }

    static func ticks(_ seconds: Double) -> Int64 { Int64((seconds * 600).rounded()) }

    /// Queues a frame for encoding; false when it was dropped (the encoder is behind).
    @discardableResult
    func append(_ frame: Frame) -> Bool {
        work.submit { [self] in
            do {
                ring += try encoder.encode(frame.pixels, pts: Self.ticks(frame.time))
                completeRequests(ended: false)
                trim()
            } catch {
                // No more packets will come: finish the waiting Live Photos with what there is.
                completeRequests(ended: true)
                throw error
            }
        }
    }

    /// A Live Photo whose still is the frame at `shutterTime` (seconds, camera clock).
    /// `recorded` runs when the movie's span is complete, `done` when its file is written.
    func request(
        id: Int, shutterTime: Double, identifier: String, path: String, settings: MovieWriter.Settings,
        recorded: @escaping @Sendable (Int) -> Void, done: @escaping @Sendable (Result<String, Error>) -> Void
    ) {
        work.async { [self] in
            requests.append(Request(id: id, shutter: Self.ticks(shutterTime), identifier: identifier, path: path, settings: settings, recorded: recorded, done: done))
            completeRequests(ended: work.failure != nil)
        }
    }

    /// The camera stopped: flush the encoder and finish every Live Photo with what there is.
    func finish() {
        work.sync {
            if let packets = try? encoder.finish() { ring += packets }
            if let packets = try? audioEncoder?.finish() { audioRing += packets }
            completeRequests(ended: true)
        }
    }

    // On `queue`.
    private func completeRequests(ended: Bool) {
        let newest = ring.last?.pts ?? Int64.min
        var waiting: [Request] = []
        for r in requests {
            if newest >= r.shutter + Self.ticks(Self.after) || ended {
                write(r)
            } else {
                waiting.append(r)
            }
        }
        requests = waiting
    }

    // On `queue`: drop packets no request can need (keep a GOP more than the pre-roll).
    private func trim() {
        guard let newest = ring.last?.pts else { return }
        let oldestShutter = requests.map(\.shutter).min() ?? newest
        let keepFrom = min(oldestShutter, newest) - Self.ticks(Self.before + 1.0)
        // Cut only at a keyframe, so what stays can start a movie.
        if let cut = ring.lastIndex(where: { $0.isKeyframe && $0.pts <= keepFrom }), cut > 0 {
            ring.removeFirst(cut)
        }
        // The sound from the oldest frame kept (a packet earlier, for the decoder's overlap).
        if let audioEncoder, let oldest = ring.first?.pts {
            let from = oldest * Int64(audioEncoder.sampleRate) / 600 - Int64(audioEncoder.frameSize)
            if let cut = audioRing.firstIndex(where: { $0.pts >= from }), cut > 0 { audioRing.removeFirst(cut) }
        }
    }

    // On `queue`.
    private func write(_ r: Request) {
        let startLimit = r.shutter - Self.ticks(Self.before), endLimit = r.shutter + Self.ticks(Self.after)
        guard let start = ring.lastIndex(where: { $0.isKeyframe && $0.pts <= startLimit }) ?? ring.firstIndex(where: { $0.isKeyframe && $0.pts <= r.shutter })
        else {
            r.done(.failure(CaptureError.failed("\(r.path): no movie frames around the shutter (the camera stopped?)")))
            return
        }
        let span = Array(ring[start...].prefix { $0.pts <= endLimit })
        r.recorded(span.count)
        do {
            let part = r.path + ".part"
            defer { unlink(part) }
            var settings = r.settings
            settings.quickTimeKeys.append(("com.apple.quicktime.content.identifier", r.identifier))
            // The sound of the same span: packets from the one holding its first frame's
            // moment to the one holding its last frame's end.
            var audio: [AudioEncoder.Packet] = []
            if let audioEncoder, let last = span.last {
                let perTick = Int64(audioEncoder.sampleRate) / 600
                let from = span[0].pts * perTick, to = (last.pts + Self.ticks(1 / settings.frameRate)) * perTick
                audio = audioRing.filter { $0.pts + $0.duration > from && $0.pts < to }
            }
            try MovieWriter.write(packets: span, of: encoder, audio: audio, of: audioEncoder, to: part, settings: settings)
            let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: part)))
            let stillTime = Double(r.shutter - span[0].pts) / 600
            let live = try LivePhotoMovie.addingStillImageTime(stillTime, to: plain)
            try CaptureFiles.write(live, to: r.path)
            r.done(.success(r.path))
        } catch {
            r.done(.failure(error))
        }
    }
}
