import Foundation
import Codecs
import Imaging

/// A movie file replayed as a camera (`file:PATH`): its frames as stored, at their own
/// times, in real time or faster (`speed` 2 = twice as fast, 0 = as fast as they decode).
/// The track's rotation becomes the photos' orientation. When the file ends the camera
/// goes on, as a real one pointed at a still scene would: it holds the last frame (its
/// frames marked ``Frame/heldAfterEnd``), or with `loop` plays the file again, its times
/// going on from where they were. So a shutter always has its frame, however late a busy
/// machine asks for it.
public final class FileCamera: FrameSource {
    public let path: String
    public var speed: Double
    public let loop: Bool
    public private(set) var naturalOrientation: EXIFOrientation = .up

    private var reader: MovieFrameReader?
    private var pacer = Pacer()
    private var number = 0
    private var frameRate: Double = 30
    private var lastDelivered: Double = -1
    private var skipped = 0
    /// Added to the file's times: the length of the plays before this one (`loop`).
    private var offset: Double = 0
    /// The time of the last frame the file gave, delivered or dropped.
    private var lastSeen: Double = 0
    /// The last frame the file gave, held once it has ended.
    private var last: PixelBuffer<UInt8>?
    private var ended = false

    /// `path` is made absolute, so a camera remembered as the default is found again from
    /// another folder.
    public init(path: String, speed: Double = 1, loop: Bool = false) {
        self.path = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        self.speed = speed
        self.loop = loop
    }

    public var device: CameraDevice {
        var formats: [CameraFormatDescription] = []
        if let r = reader ?? (try? MovieFrameReader(path: path)) {
            formats = [
                CameraFormatDescription(
                    fourCC: "RGB3", description: "decoded from the file",
                    sizes: [.init(size: FrameSize(width: r.width, height: r.height), frameRates: [r.frameRate].filter { $0 > 0 })])
            ]
        }
        return CameraDevice(id: "file:\(path)", kind: .file, name: "File Camera", capabilities: ["video-capture"], formats: formats)
    }

    public func start(_ configuration: CameraConfiguration) throws -> CameraConfiguration {
        let r: MovieFrameReader
        do {
            r = try MovieFrameReader(path: path)
        } catch {
            throw CaptureError.failed("file:\(path): cannot replay: \(error)")
        }
        reader = r
        naturalOrientation = r.orientation
        frameRate = r.frameRate > 0 ? r.frameRate : 30
        number = 0
        lastDelivered = -1
        (offset, lastSeen, last, ended) = (0, 0, nil, false)
        pacer.start()
        // The file's frames are what they are: its size and rate, whatever was asked.
        return CameraConfiguration(size: FrameSize(width: r.width, height: r.height), frameRate: frameRate)
    }

    /// The longest a call waits, skipping late frames, before it gives a late one: a file
    /// decoded slower than it plays (a busy machine, a high `speed`) still gives frames,
    /// as a camera under pressure gives fewer, never none.
    public static let longestWithoutFrame = 0.5

    public func nextFrame() throws -> Frame? {
        guard var reader else { throw CaptureError.failed("file:\(path): the camera is not streaming") }
        let called = pacer.elapsed
        while !ended {
            let decoded: MovieFrameReader.DecodedFrame?
            do {
                decoded = try reader.next()
            } catch {
                throw CaptureError.failed("file:\(path): \(error)")
            }
            guard let decoded else {
                guard loop, last != nil else {
                    ended = true
                    break
                }
                // Again from the start, its times after the last frame the file gave (not the
                // last delivered: on a busy machine every frame of a play may have been late,
                // and the next play must still move on in time, or none would ever be on time).
                offset = lastSeen + 1 / frameRate
                do {
                    reader = try MovieFrameReader(path: path)
                } catch {
                    throw CaptureError.failed("file:\(path): cannot replay it again: \(error)")
                }
                self.reader = reader
                continue
            }
            let seconds = decoded.seconds + offset
            lastSeen = seconds
            // A lowered frame rate (system pressure) skips frames that come too soon.
            if lastDelivered >= 0, seconds - lastDelivered < 0.999 / frameRate { continue }
            // In real time, frames whose moment has passed are dropped, as a camera would.
            if speed > 0, pacer.elapsed > seconds / speed + 1 / frameRate, pacer.elapsed - called < Self.longestWithoutFrame {
                last = decoded.pixels
                skipped += 1
                continue
            }
            if speed > 0 { pacer.wait(until: seconds / speed) }
            return deliver(decoded.pixels, at: seconds)
        }
        // Ended: the last frame again, one per frame interval, never late (they are all alike).
        guard let last else { return nil }
        var next = lastDelivered < 0 ? 0 : lastDelivered + 1 / frameRate
        if speed > 0 {
            next = max(next, pacer.elapsed * speed)
            pacer.wait(until: next / speed)
        }
        var frame = deliver(last, at: next)
        frame.heldAfterEnd = true
        return frame
    }

    private func deliver(_ pixels: PixelBuffer<UInt8>, at seconds: Double) -> Frame {
        last = pixels
        lastDelivered = seconds
        defer {
            number += 1
            skipped = 0
        }
        var frame = Frame(pixels: pixels, time: seconds, number: number)
        frame.droppedBefore = skipped
        return frame
    }

    public func setFrameRate(_ rate: Double) throws -> Double {
        guard rate > 0 else { throw CaptureError.unsupported("file: frame rate must be positive") }
        frameRate = rate
        return rate
    }

    public var clockOrigin: Double? { pacer.startedAt }

    public func stop() { reader = nil }
}
