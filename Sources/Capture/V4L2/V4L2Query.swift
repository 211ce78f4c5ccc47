import CV4L2
import Glibc

/// Reads what a V4L2 device is and offers: QUERYCAP, then ENUM_FMT, ENUM_FRAMESIZES and
/// ENUM_FRAMEINTERVALS for every format.
public enum V4L2Query {
    /// Describes the device at `path`. Nodes that cannot capture video (a webcam's
    /// metadata node) throw `CaptureError.notACamera`.
    public static func describe(_ path: String) throws -> CameraDevice { try describe(path, interface: LibV4L2()) }

    package static func describe(_ path: String, interface io: V4L2Interface) throws -> CameraDevice {
        let fd = io.open(path)
        guard fd >= 0 else { throw CaptureError.from(errno: errno, device: path, call: "open") }
        defer { io.close(fd) }
        func call<T>(_ request: UInt, _ argument: inout T) -> Int32 {
            while true {
                let r = withUnsafeMutablePointer(to: &argument) { io.ioctl(fd, request, UnsafeMutableRawPointer($0)) }
                if r == 0 || errno != EINTR { return r }
            }
        }
        var caps = v4l2_capability()
        guard call(VIDIOC.querycap, &caps) == 0 else { throw CaptureError.from(errno: errno, device: path, call: "VIDIOC_QUERYCAP") }
        let deviceCaps = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        guard deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw CaptureError.notACamera(path, reason: "it has no video-capture capability")
        }

        var formats: [CameraFormatDescription] = []
        for index in 0..<UInt32(64) {
            var desc = v4l2_fmtdesc()
            desc.index = index
            desc.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            guard call(VIDIOC.enumFormat, &desc) == 0 else { break }
            var sizes: [CameraFormatDescription.SizeOption] = []
            for sizeIndex in 0..<UInt32(256) {
                var frameSize = v4l2_frmsizeenum()
                frameSize.index = sizeIndex
                frameSize.pixel_format = desc.pixelformat
                guard call(VIDIOC.enumFrameSizes, &frameSize) == 0 else { break }
                var candidates: [FrameSize] = []
                if frameSize.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                    candidates = [FrameSize(width: Int(frameSize.discrete.width), height: Int(frameSize.discrete.height))]
                } else {
                    // Stepwise or continuous: the smallest and the largest stand for the range.
                    let s = frameSize.stepwise
                    candidates = [
                        FrameSize(width: Int(s.max_width), height: Int(s.max_height)),
                        FrameSize(width: Int(s.min_width), height: Int(s.min_height)),
                    ]
                }
                for size in candidates {
                    sizes.append(.init(size: size, frameRates: frameRates(call: call, format: desc.pixelformat, size: size)))
                }
                if frameSize.type != V4L2_FRMSIZE_TYPE_DISCRETE.rawValue { break }
            }
            formats.append(
                CameraFormatDescription(
                    fourCC: FourCC.text(desc.pixelformat), description: string(desc.description),
                    emulated: desc.flags & UInt32(V4L2_FMT_FLAG_EMULATED) != 0,
                    sizes: sizes.sorted { $0.size.pixels > $1.size.pixels }))
        }
        let native = formats.filter { !$0.emulated }
        let isDepth = !native.isEmpty && native.allSatisfy { ["Z16 ", "Y16 ", "INVZ"].contains($0.fourCC) }
        return CameraDevice(
            id: path, kind: .v4l2, name: string(caps.card), driver: string(caps.driver), bus: string(caps.bus_info),
            capabilities: capabilityNames(deviceCaps), formats: formats, isDepth: isDepth,
            auxiliaryOutputs: isDepth ? ["depth"] : [])
    }

    private static func frameRates(call: (UInt, inout v4l2_frmivalenum) -> Int32, format: UInt32, size: FrameSize) -> [Double] {
        var rates: [Double] = []
        for index in 0..<UInt32(64) {
            var interval = v4l2_frmivalenum()
            interval.index = index
            interval.pixel_format = format
            interval.width = UInt32(size.width)
            interval.height = UInt32(size.height)
            guard call(VIDIOC.enumFrameIntervals, &interval) == 0 else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                let f = interval.discrete
                if f.numerator > 0 { rates.append(Double(f.denominator) / Double(f.numerator)) }
            } else {
                // A range: its fastest and slowest rates.
                let s = interval.stepwise
                if s.min.numerator > 0 { rates.append(Double(s.min.denominator) / Double(s.min.numerator)) }
                if s.max.numerator > 0 { rates.append(Double(s.max.denominator) / Double(s.max.numerator)) }
                break
            }
        }
        return Array(Set(rates)).sorted(by: >)
    }

    static func capabilityNames(_ caps: UInt32) -> [String] {
        let names: [(Int32, String)] = [
            (V4L2_CAP_VIDEO_CAPTURE, "video-capture"), (V4L2_CAP_VIDEO_CAPTURE_MPLANE, "video-capture-mplane"),
            (V4L2_CAP_META_CAPTURE, "metadata-capture"), (V4L2_CAP_READWRITE, "read-write"), (V4L2_CAP_STREAMING, "streaming"),
        ]
        return names.filter { caps & UInt32($0.0) != 0 }.map(\.1)
    }

    /// A NUL-terminated C char array (a tuple in Swift) as a String.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
