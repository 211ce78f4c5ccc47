import Codecs
import Foundation
import Imaging

/// Records frames into a MOV on an `EncoderQueue`, so the camera never waits for the
/// encoder. Writes `NAME.mov.part` and gives it its final name once `finish()` has written
/// the index, so a file with the final name always plays. Frames refused while the
/// encoder is behind are counted in `dropped`. The movie's time starts at its first
/// frame; with a `maximumDuration`, frames from that much later on are left out, so the
/// movie lasts what was asked on the camera's clock however late the recording is stopped
/// (AVCaptureMovieFileOutput's `maxRecordedDuration`).
/// `@unchecked Sendable`: the writer is used only by work on `work`, its serial queue; `startTime` is under `lock`.
final class MovieRecorder: @unchecked Sendable {
    let finalPath: String
    let partPath: String
    let maximumDuration: Double?

    private let work = EncoderQueue(label: "camlib.movie-recorder")
    private var writer: MovieWriter?  // used on the queue only
    private let lock = NSLock()
    private var startTime: Double?  // the first frame's, under `lock`

    init(path: String, settings: MovieWriter.Settings, maximumDuration: Double? = nil) throws {
        finalPath = path
        partPath = path + ".part"
        self.maximumDuration = maximumDuration
        writer = try MovieWriter(path: partPath, settings: settings)
    }

    var dropped: Int { work.dropped }

    /// Whether a frame at this time (seconds on the camera's clock) is past the movie's end.
    func isPastEnd(_ time: Double) -> Bool {
        guard let maximumDuration, let start = lock.withLock({ startTime }) else { return false }
        return time - start >= maximumDuration - 1e-9
    }

    /// Queues a frame; false when it was dropped because the encoder is behind. A frame
    /// past the end is left out (and is not a drop).
    @discardableResult
    func append(_ frame: Frame) -> Bool {
        if isPastEnd(frame.time) { return true }
        let start = lock.withLock { () -> Double in
            if startTime == nil { startTime = frame.time }
            return startTime!
        }
        let pts = max(0, Int64(((frame.time - start) * 600).rounded()))
        return work.submit { [self] in try writer?.append(frame.pixels, pts: pts) }
    }

    /// Queues sound heard at `chunk.time` (camera clock), placed against the frames: what
    /// comes before the first frame or after the movie's end is left out.
    func appendAudio(_ chunk: AudioChunk) {
        guard let rate = writer?.settings.audioSampleRate, let start = lock.withLock({ startTime }) else { return }
        var samples = chunk.samples
        if let maximumDuration {
            let room = Int(((start + maximumDuration - chunk.time) * Double(rate)).rounded())
            if room <= 0 { return }
            if room < samples.count { samples.removeLast(samples.count - room) }
        }
        let pts = Int64(((chunk.time - start) * Double(rate)).rounded())
        work.submitAlways { [self, samples] in try writer?.appendAudio(samples, pts: pts) }
    }

    /// Drains the queue, finishes the file and gives it its final name.
    func finish() throws -> (path: String, frames: Int) {
        let result = work.sync { () -> Result<Int, Error> in
            defer { writer = nil }
            do {
                if let failure = work.failure { throw failure }
                guard let writer else { throw CaptureError.failed("the movie was already finished") }
                try writer.finish()
                return .success(writer.framesWritten)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .failure(let error):
            unlink(partPath)
            throw CaptureError.failed("\(finalPath): the movie could not be finished: \(error)")
        case .success(let frames):
            guard frames > 0 else {
                unlink(partPath)
                throw CaptureError.failed("\(finalPath): no frame was recorded")
            }
            try CaptureFiles.publish(partPath, as: finalPath)
            return (finalPath, frames)
        }
    }
}
