internal import CFFmpeg
import Imaging

/// Encodes RGB frames to H.264 or HEVC packets (libavcodec with libx264/libx265, no
/// B-frames, so packets come in presentation order and a movie can start at any
/// keyframe). `MovieWriter` muxes them into a file as they come; a Live Photo keeps them
/// in a ring and muxes the span around the shutter.
/// avcodec_alloc_context3 → avcodec_free_context, av_frame_alloc → av_frame_free,
/// av_packet_alloc → av_packet_free, sws_getContext → sws_freeContext.
public final class VideoEncoder {
    /// One encoded frame: its bytes and presentation time (the settings' time base).
    public struct Packet: Sendable {
        public var data: [UInt8]
        public var pts: Int64
        public var isKeyframe: Bool
    }

    public let settings: MovieWriter.Settings
    var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var fromRGB: OpaquePointer?
    private var lastPTS = Int64.min
    private var flushed = false
    public private(set) var framesEncoded = 0

    public init(settings: MovieWriter.Settings) throws {
        try FFmpegLibrary.load()
        self.settings = settings
        do {
            try open()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func open() throws {
        let s = settings
        guard s.width > 0, s.height > 0, s.width % 2 == 0, s.height % 2 == 0 else {
            throw FFmpegError(message: "a 4:2:0 movie needs an even, non-zero size (got \(s.width)x\(s.height))", call: "VideoEncoder")
        }
        guard let codec = ff.avcodec_find_encoder_by_name(s.codec.encoderName) else {
            throw FFmpegError(message: "FFmpeg has no \(s.codec.encoderName) encoder", call: "avcodec_find_encoder_by_name")
        }
        context = ff.avcodec_alloc_context3(codec)
        guard let enc = context else { throw FFmpegError(message: "out of memory", call: "avcodec_alloc_context3") }
        enc.pointee.width = Int32(s.width)
        enc.pointee.height = Int32(s.height)
        enc.pointee.time_base = AVRational(num: s.timeBase.numerator, den: s.timeBase.denominator)
        enc.pointee.framerate = ff.av_d2q(s.frameRate, 100_000)
        enc.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        enc.pointee.color_range = s.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        enc.pointee.color_primaries = s.colour.primaries
        enc.pointee.color_trc = s.colour.transfer
        enc.pointee.colorspace = s.colour.matrix
        enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        if let interval = s.keyframeInterval { enc.pointee.gop_size = Int32(interval) }
        if let cap = s.maximumBitRate {
            enc.pointee.rc_max_rate = Int64(cap)
            enc.pointee.rc_buffer_size = Int32(clamping: Int((Double(cap) * s.bitRateWindow).rounded()))
        }
        // av_dict_set → av_dict_free.
        var options: OpaquePointer?
        defer { ff.av_dict_free(&options) }
        _ = ff.av_dict_set(&options, "preset", s.preset, 0)
        _ = ff.av_dict_set(&options, "crf", String(s.crf), 0)
        // No B-frames: decoding order is presentation order, which keeps edit lists
        // simple and lets a movie start or stop at any keyframe.
        if s.codec == .hevc {
            var params = "bframes=0:log-level=error" + Cores.x265Threading.map { ":\($0.name)=\($0.value)" }.joined()
            if let interval = s.keyframeInterval { params += ":keyint=\(interval):min-keyint=\(interval):scenecut=0" }
            _ = ff.av_dict_set(&options, "x265-params", params, 0)
        } else {
            _ = ff.av_dict_set(&options, "bf", "0", 0)
            if s.keyframeInterval != nil { _ = ff.av_dict_set(&options, "sc_threshold", "0", 0) }
        }
        let rc = ff.avcodec_open2(enc, codec, &options)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_open2 (encoder)") }

        frame = ff.av_frame_alloc()
        packet = ff.av_packet_alloc()
        guard let frame, packet != nil else { throw FFmpegError(message: "out of memory", call: "av_frame_alloc") }
        frame.pointee.format = enc.pointee.pix_fmt.rawValue
        frame.pointee.width = Int32(s.width)
        frame.pointee.height = Int32(s.height)
        let r = ff.av_frame_get_buffer(frame, 0)
        guard r >= 0 else { throw FFmpegError(code: r, call: "av_frame_get_buffer") }
        fromRGB = ff.sws_getContext(
            Int32(s.width), Int32(s.height), AV_PIX_FMT_RGB24, Int32(s.width), Int32(s.height), enc.pointee.pix_fmt, SWS_POINT, nil, nil, nil)
        guard fromRGB != nil else { throw FFmpegError(message: "cannot convert RGB to 4:2:0", call: "sws_getContext") }
        let coefficients = ff.sws_getCoefficients(SWS_CS_ITU709)
        _ = ff.sws_setColorspaceDetails(fromRGB, coefficients, 1, coefficients, s.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
    }

    /// Encodes one frame (RGB, the settings' size) shown from `pts`; returns the packets
    /// the encoder had ready. Timestamps must increase; a frame at or before the previous
    /// one is dropped.
    public func encode(_ pixels: PixelBuffer<UInt8>, pts: Int64) throws -> [Packet] {
        guard pixels.width == settings.width, pixels.height == settings.height, pixels.channels == 3 else {
            throw FFmpegError(message: "a \(pixels.width)x\(pixels.height) frame in a \(settings.width)x\(settings.height) movie", call: "VideoEncoder.encode")
        }
        return try send(pts: pts) { frame in
            let planes = FramePlanes(frame)
            pixels.components.withUnsafeBufferPointer { src in
                var input: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                var strides: [Int32] = [Int32(pixels.width * 3), 0, 0, 0]
                _ = ff.sws_scale(fromRGB, &input, &strides, 0, Int32(pixels.height), planes.planes, planes.strides)
            }
        }
    }

    /// Encodes one frame shown from `pts` that `draw` writes straight into the frame's
    /// planes (Y'CbCr 4:2:0, BT.709, the settings' range); returns the packets the encoder
    /// had ready. Timestamps as for `encode(_:pts:)`.
    public func encode(pts: Int64, drawing draw: (YCbCr420Planes) -> Void) throws -> [Packet] {
        try send(pts: pts) { frame in
            guard let planes = YCbCr420Planes(frame, fullRange: settings.fullRange) else {
                throw FFmpegError(message: "the encoder's frame is not 4:2:0 planes", call: "VideoEncoder.encode")
            }
            draw(planes)
        }
    }

    /// The encoder's frame, made writable and filled by `fill`, sent at `pts`; the packets
    /// the encoder had ready. A frame at or before the previous one is dropped unfilled.
    private func send(pts: Int64, fill: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws -> [Packet] {
        guard !flushed, let enc = context, let frame else { throw FFmpegError(message: "the encoder is finished", call: "VideoEncoder.encode") }
        guard pts > lastPTS else { return [] }
        lastPTS = pts
        var rc = ff.av_frame_make_writable(frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_frame_make_writable") }
        try fill(frame)
        frame.pointee.pts = pts
        rc = ff.avcodec_send_frame(enc, frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_send_frame") }
        framesEncoded += 1
        return try receive()
    }

    /// Drains the encoder: the packets of the frames it still held.
    public func finish() throws -> [Packet] {
        guard !flushed, let enc = context else { return [] }
        flushed = true
        _ = ff.avcodec_send_frame(enc, nil)
        return try receive()
    }

    private func receive() throws -> [Packet] {
        guard let enc = context, let packet else { return [] }
        return try receivePackets(from: enc, into: packet, call: "avcodec_receive_packet") { p in
            Packet(
                data: Array(UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size))),
                pts: p.pointee.pts, isKeyframe: p.pointee.flags & AV_PKT_FLAG_KEY != 0)
        }
    }

    private func close() {
        ff.sws_freeContext(fromRGB)
        fromRGB = nil
        ff.av_frame_free(&frame)
        ff.av_packet_free(&packet)
        ff.avcodec_free_context(&context)
    }
}
