/// A camera camlib can capture from: a V4L2 device node, the built-in virtual camera, or
/// a movie file replayed as a camera.
public struct CameraDevice: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case v4l2, virtual, file
    }

    /// What `--device` takes: `/dev/video0`, `virtual`, `file:PATH`.
    public var id: String
    public var kind: Kind
    /// The card name (V4L2 `card`), or a description of a built-in camera.
    public var name: String
    /// V4L2 driver and bus (`usb-0000:00:14.0-1`); nil for built-in cameras.
    public var driver: String?
    public var bus: String?
    /// Capability names (`video-capture`, `streaming`, `read-write`, …).
    public var capabilities: [String]
    public var formats: [CameraFormatDescription]
    /// A depth camera: it delivers Z16 (16-bit distances) rather than colour.
    public var isDepth: Bool
    /// What the camera can deliver beside colour frames: `depth`, `portraitMatte`,
    /// `skin`, `hair`, `teeth`, `glasses`.
    public var auxiliaryOutputs: [String]
    /// Why the device cannot be used now (permission, busy), in words a user can act on.
    public var problem: String?

    public init(
        id: String, kind: Kind, name: String, driver: String? = nil, bus: String? = nil, capabilities: [String] = [],
        formats: [CameraFormatDescription], isDepth: Bool = false, auxiliaryOutputs: [String] = []
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.driver = driver
        self.bus = bus
        self.capabilities = capabilities
        self.formats = formats
        self.isDepth = isDepth
        self.auxiliaryOutputs = auxiliaryOutputs
    }

    /// The largest size this camera delivers in any colour format.
    public var largestSize: FrameSize? {
        formats.flatMap(\.sizes).max { $0.size.pixels < $1.size.pixels }?.size
    }
}

/// One pixel format of a device with the sizes and frame rates it offers.
public struct CameraFormatDescription: Sendable, Equatable, Codable {
    /// FourCC: `YUYV`, `MJPG`, `Z16 `, `RGB3`, …
    public var fourCC: String
    public var description: String
    /// libv4l converts to this format in software (the device does not deliver it).
    public var emulated: Bool
    public var sizes: [SizeOption]

    public struct SizeOption: Sendable, Equatable, Codable {
        public var size: FrameSize
        /// Frames per second, highest first.
        public var frameRates: [Double]

        public init(size: FrameSize, frameRates: [Double]) {
            self.size = size
            self.frameRates = frameRates
        }
    }

    public init(fourCC: String, description: String, emulated: Bool = false, sizes: [SizeOption]) {
        self.fourCC = fourCC
        self.description = description
        self.emulated = emulated
        self.sizes = sizes
    }
}

public struct FrameSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Parses `1920x1440`.
    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }

    public var pixels: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}

/// What a session asks a camera for: one size and frame rate.
public struct CameraConfiguration: Sendable, Equatable {
    public var size: FrameSize
    public var frameRate: Double

    public init(size: FrameSize, frameRate: Double) {
        self.size = size
        self.frameRate = frameRate
    }
}

/// A four-character code as V4L2 packs it (little-endian).
public enum FourCC {
    public static func code(_ text: String) -> UInt32 {
        let bytes = Array(text.utf8) + [32, 32, 32, 32]
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    public static func text(_ code: UInt32) -> String {
        let bytes = (0..<4).map { UInt8((code >> (8 * UInt32($0))) & 0xFF) }
        return String(decoding: bytes.map { (32...126).contains($0) ? $0 : 63 }, as: UTF8.self)
    }
}
