import Codecs
import Imaging

/// A movie file replayed as a camera (`file:PATH`): its frames as stored, at their own
/// times, in real time or faster (`speed` 2 = twice as fast, 0 = as fast as they decode).
/// The track's rotation becomes the photos' orientation. The camera ends with the file.
public final class FileCamera: FrameSource {
    public let path: String
    public var speed: Double
    public private(set) var naturalOrientation: EXIFOrientation = .up

    private var reader: MovieFrameReader?
    private var pacer = Pacer()
    private var number = 0
    private var frameRate: Double = 30
    private var lastDelivered: Double = -1
    private var skipped = 0

    public init(path: String, speed: Double = 1) {
        self.path = path
        self.speed = speed
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
        pacer.start()
        // The file's frames are what they are: its size and rate, whatever was asked.
        return CameraConfiguration(size: FrameSize(width: r.width, height: r.height), frameRate: frameRate)
    }

    public func nextFrame() throws -> Frame? {
        guard let reader else { throw CaptureError.failed("file:\(path): the camera is not streaming") }
        while true {
            let decoded: MovieFrameReader.DecodedFrame?
            do {
                decoded = try reader.next()
            } catch {
                throw CaptureError.failed("file:\(path): \(error)")
            }
            guard let decoded else { return nil }
            // A lowered frame rate (system pressure) skips frames that come too soon.
            if lastDelivered >= 0, decoded.seconds - lastDelivered < 0.999 / frameRate { continue }
            // In real time, frames whose moment has passed are dropped, as a camera would.
            if speed > 0, pacer.elapsed > decoded.seconds / speed + 1 / frameRate {
                skipped += 1
                continue
            }
            if speed > 0 { pacer.wait(until: decoded.seconds / speed) }
            lastDelivered = decoded.seconds
            defer {
                number += 1
                skipped = 0
            }
            var frame = Frame(pixels: decoded.pixels, time: decoded.seconds, number: number)
            frame.droppedBefore = skipped
            return frame
        }
    }

    public func setFrameRate(_ rate: Double) throws -> Double {
        guard rate > 0 else { throw CaptureError.unsupported("file: frame rate must be positive") }
        frameRate = rate
        return rate
    }

    public func stop() { reader = nil }
}
