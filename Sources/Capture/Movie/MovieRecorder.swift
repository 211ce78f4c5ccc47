import Codecs
import Dispatch
import Foundation
import Imaging

/// Records frames into a MOV on its own queue so the camera never waits for the encoder.
/// Writes `NAME.mov.part` and renames it to `NAME.mov` once `finish()` has written the
/// index, so a file with the final name always plays. When the encoder falls behind by
/// more than `maximumBacklog` frames, new frames are dropped and counted: the session's
/// signal to lower the frame rate.
final class MovieRecorder: @unchecked Sendable {
    let finalPath: String
    let partPath: String
    let startTime: Double
    static let maximumBacklog = 8

    private let queue = DispatchQueue(label: "camlib.movie-recorder")
    private let lock = NSLock()
    private var writer: MovieWriter?
    private var backlog = 0
    private var failure: Error?
    private(set) var dropped = 0
    private(set) var accepted = 0

    init(path: String, settings: MovieWriter.Settings, startTime: Double) throws {
        finalPath = path
        partPath = path + ".part"
        self.startTime = startTime
        writer = try MovieWriter(path: partPath, settings: settings)
    }

    /// Queues a frame; false when it was dropped because the encoder is behind.
    @discardableResult
    func append(_ frame: Frame) -> Bool {
        lock.lock()
        if backlog >= Self.maximumBacklog || failure != nil {
            dropped += 1
            lock.unlock()
            return false
        }
        backlog += 1
        accepted += 1
        lock.unlock()
        let pts = Int64(((frame.time - startTime) * 600).rounded())
        queue.async { [self] in
            defer {
                lock.lock()
                backlog -= 1
                lock.unlock()
            }
            guard let writer else { return }
            do {
                try writer.append(frame.pixels, pts: max(0, pts))
            } catch {
                lock.lock()
                if failure == nil { failure = error }
                lock.unlock()
            }
        }
        return true
    }

    var backlogCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return backlog
    }

    /// Drains the queue, finishes the file and gives it its final name.
    func finish() throws -> (path: String, frames: Int) {
        var result: Result<Int, Error> = .success(0)
        queue.sync {
            do {
                if let failure { throw failure }
                guard let writer else { throw CaptureError.failed("the movie was already finished") }
                try writer.finish()
                result = .success(writer.framesWritten)
            } catch {
                result = .failure(error)
            }
            writer = nil
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
            if let fd = Optional(open(partPath, O_RDONLY)), fd >= 0 {
                fsync(fd)
                close(fd)
            }
            guard rename(partPath, finalPath) == 0 else {
                throw CaptureError.failed("\(finalPath): cannot rename the finished movie: \(String(cString: strerror(errno)))")
            }
            return (finalPath, frames)
        }
    }
}
