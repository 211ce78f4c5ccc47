import CV4L2
import Glibc
import Imaging

/// A V4L2 device driven the way the kernel documents it: S_FMT to RGB24 (libv4l2
/// converts MJPEG and YUYV), S_PARM for the frame rate, four mmap buffers cycling through
/// QBUF/DQBUF, STREAMON/STREAMOFF. Every call goes through a `V4L2Interface`.
public final class V4L2Camera: FrameSource {
    public let device: CameraDevice
    let path: String
    let io: V4L2Interface
    /// How long `nextFrame` waits for the device before giving up.
    public var frameTimeout: Double = 3

    private var fd: Int32 = -1
    private var buffers: [(address: UnsafeMutableRawPointer, length: Int)] = []
    private var format = v4l2_pix_format()
    private var firstTimestamp: Double?
    /// The first frame's buffer time: V4L2 stamps buffers on the monotonic clock.
    public var clockOrigin: Double? { firstTimestamp }
    private var delivered = 0
    private var lastSequence: UInt32?

    /// `RGB3` (colour, libv4l converting what the device sends) or `Z16 ` (a depth
    /// camera's 16-bit distances, as the device sends them).
    public let pixelFormat: String
    private var bytesPerPixel: Int { pixelFormat == "RGB3" ? 3 : 2 }

    public convenience init(path: String, device: CameraDevice? = nil, pixelFormat: String = "RGB3") {
        self.init(path: path, device: device, interface: LibV4L2(), pixelFormat: pixelFormat)
    }

    package init(path: String, device: CameraDevice? = nil, interface: V4L2Interface, pixelFormat: String = "RGB3") {
        self.pixelFormat = pixelFormat
        self.path = path
        self.io = interface
        self.device = device ?? CameraDevice(id: path, kind: .v4l2, name: path, formats: [])
    }

    deinit { stop() }

    public func start(_ configuration: CameraConfiguration) throws -> CameraConfiguration {
        stop()
        fd = io.open(path)
        guard fd >= 0 else { throw CaptureError.from(errno: errno, device: path, call: "open") }
        do {
            return try configureAndStream(configuration)
        } catch {
            stop()
            throw error
        }
    }

    private func configureAndStream(_ configuration: CameraConfiguration) throws -> CameraConfiguration {
        var caps = v4l2_capability()
        try call(VIDIOC.querycap, &caps, "VIDIOC_QUERYCAP")
        let deviceCaps = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        guard deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 else {
            throw CaptureError.notACamera(path, reason: "it has no video-capture capability")
        }
        guard deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0 else {
            throw CaptureError.notACamera(path, reason: "it cannot stream through mmap buffers")
        }

        // Format: RGB24 at the asked size; the driver answers with what it can do.
        var fmt = v4l2_format()
        fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        fmt.fmt.pix.width = UInt32(configuration.size.width)
        fmt.fmt.pix.height = UInt32(configuration.size.height)
        fmt.fmt.pix.pixelformat = FourCC.code(pixelFormat)
        fmt.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try call(VIDIOC.setFormat, &fmt, "VIDIOC_S_FMT")
        format = fmt.fmt.pix
        guard format.pixelformat == FourCC.code(pixelFormat) else {
            throw CaptureError.unsupported(
                "\(path): the camera cannot deliver \(pixelFormat == "RGB3" ? "RGB, even through libv4l" : pixelFormat) (it offers \(FourCC.text(format.pixelformat)))")
        }
        guard format.width > 0, format.height > 0, Int(format.bytesperline) >= Int(format.width) * bytesPerPixel else {
            throw CaptureError.failed("\(path): the driver answered S_FMT with an unusable format \(format.width)x\(format.height), \(format.bytesperline) bytes per line")
        }

        // Frame rate: not every driver lets it be set; keep what it has then.
        let applied = (try? setFrameRate(configuration.frameRate)) ?? configuration.frameRate

        // Buffers: four, memory-mapped.
        var request = v4l2_requestbuffers()
        request.count = 4
        request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try call(VIDIOC.requestBuffers, &request, "VIDIOC_REQBUFS")
        guard request.count >= 2 else { throw CaptureError.failed("\(path): the driver granted \(request.count) buffer(s); streaming needs 2") }
        for index in 0..<request.count {
            var buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            buffer.index = index
            try call(VIDIOC.queryBuffer, &buffer, "VIDIOC_QUERYBUF")
            guard let address = io.mmap(fd, length: Int(buffer.length), offset: Int64(buffer.m.offset)) else {
                throw CaptureError.from(errno: errno, device: path, call: "mmap")
            }
            buffers.append((address, Int(buffer.length)))
            try call(VIDIOC.queueBuffer, &buffer, "VIDIOC_QBUF")
        }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        try call(VIDIOC.streamOn, &type, "VIDIOC_STREAMON")
        firstTimestamp = nil
        delivered = 0
        lastSequence = nil
        return CameraConfiguration(size: FrameSize(width: Int(format.width), height: Int(format.height)), frameRate: applied)
    }

    public func setFrameRate(_ frameRate: Double) throws -> Double {
        var parm = v4l2_streamparm()
        parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        try call(VIDIOC.getParameters, &parm, "VIDIOC_G_PARM")
        guard parm.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else {
            throw CaptureError.unsupported("\(path): the driver does not let the frame rate be set")
        }
        parm.parm.capture.timeperframe = v4l2_fract(numerator: 1000, denominator: UInt32(max(1, (frameRate * 1000).rounded())))
        try call(VIDIOC.setParameters, &parm, "VIDIOC_S_PARM")
        let t = parm.parm.capture.timeperframe
        return t.numerator > 0 ? Double(t.denominator) / Double(t.numerator) : frameRate
    }

    public func nextFrame() throws -> Frame? {
        guard pixelFormat == "RGB3" else { throw CaptureError.failed("\(path): a depth camera delivers depth frames (nextDepthFrame)") }
        let (bytes, frame) = try nextRaw()
        var out = frame
        out.pixels = PixelBuffer(width: Int(format.width), height: Int(format.height), channels: 3, components: bytes)
        return out
    }

    /// A Z16 frame: 16-bit little-endian distances in the device's units, and its time.
    public func nextDepthFrame() throws -> (depth: PixelBuffer<UInt16>, time: Double) {
        guard pixelFormat != "RGB3" else { throw CaptureError.failed("\(path): a colour camera delivers colour frames") }
        let (bytes, frame) = try nextRaw()
        let values = stride(from: 0, to: bytes.count - 1, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        return (PixelBuffer(width: Int(format.width), height: Int(format.height), channels: 1, components: values), frame.time)
    }

    /// The next whole frame's rows, packed, with its time and drop count (`pixels` empty).
    private func nextRaw() throws -> ([UInt8], Frame) {
        guard fd >= 0 else { throw CaptureError.failed("\(path): the camera is not streaming") }
        while true {
            var buffer = try dequeue()
            if let raw = try copyOut(&buffer) { return raw }
            // A short frame (the device dropped data) was given back; wait for the next.
        }
    }

    private func dequeue() throws -> v4l2_buffer {
        var buffer = v4l2_buffer()
        while true {
            buffer = v4l2_buffer()
            buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
            buffer.memory = V4L2_MEMORY_MMAP.rawValue
            if io.ioctl(fd, VIDIOC.dequeueBuffer, &buffer) == 0 { break }
            let code = errno
            switch code {
            case EINTR:
                continue
            case EAGAIN:
                let ready = io.poll(fd, timeoutMilliseconds: Int32(frameTimeout * 1000))
                if ready == 0 { throw CaptureError.timeout(path, seconds: frameTimeout) }
                if ready < 0, errno != EINTR { throw CaptureError.from(errno: errno, device: path, call: "poll") }
            default:
                throw CaptureError.from(errno: code, device: path, call: "VIDIOC_DQBUF")
            }
        }
        return buffer
    }

    private func copyOut(_ buffer: inout v4l2_buffer) throws -> ([UInt8], Frame)? {
        let index = Int(buffer.index)
        guard index < buffers.count else { throw CaptureError.failed("\(path): the driver returned buffer \(index) of \(buffers.count)") }
        let width = Int(format.width), height = Int(format.height), stride = Int(format.bytesperline)
        let rowBytes = width * bytesPerPixel
        let needed = stride * (height - 1) + rowBytes
        guard Int(buffer.bytesused) >= needed || buffer.bytesused == 0, buffers[index].length >= needed else {
            try requeue(&buffer)
            return nil
        }
        var packed = [UInt8](repeating: 0, count: rowBytes * height)
        let source = buffers[index].address.assumingMemoryBound(to: UInt8.self)
        packed.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height { (dst.baseAddress! + y * rowBytes).update(from: source + y * stride, count: rowBytes) }
        }
        try requeue(&buffer)
        let stamp = Double(buffer.timestamp.tv_sec) + Double(buffer.timestamp.tv_usec) / 1e6
        let first = firstTimestamp ?? stamp
        firstTimestamp = first
        defer { delivered += 1 }
        var frame = Frame(pixels: PixelBuffer(width: 0, height: 0, channels: 1), time: max(0, stamp - first), number: delivered)
        // The driver numbers every frame it captured; a gap is frames it dropped because
        // no buffer was free.
        if let last = lastSequence, buffer.sequence > last + 1 { frame.droppedBefore = Int(buffer.sequence - last - 1) }
        lastSequence = buffer.sequence
        return (packed, frame)
    }

    private func requeue(_ buffer: inout v4l2_buffer) throws {
        try call(VIDIOC.queueBuffer, &buffer, "VIDIOC_QBUF")
    }

    public func stop() {
        guard fd >= 0 else { return }
        var type = Int32(V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue)
        _ = io.ioctl(fd, VIDIOC.streamOff, &type)
        for b in buffers { io.munmap(b.address, length: b.length) }
        buffers = []
        io.close(fd)
        fd = -1
    }

    /// One ioctl, retried on EINTR, failures mapped to `CaptureError`.
    private func call<T>(_ request: UInt, _ argument: inout T, _ name: String) throws {
        while true {
            let r = withUnsafeMutablePointer(to: &argument) { io.ioctl(fd, request, UnsafeMutableRawPointer($0)) }
            if r == 0 { return }
            let code = errno
            if code == EINTR { continue }
            throw CaptureError.from(errno: code, device: path, call: name)
        }
    }
}
