internal import CFFmpeg
import Containers
import Imaging

/// A movie opened with libavformat: its duration, streams, rotation and QuickTime
/// metadata keys, and a decoded poster frame.
///
/// ```swift
/// let movie = try MovieFile(path: "IMG_3582.mov")
/// movie.metadata["com.apple.quicktime.content.identifier"]   // "602FEBB7-…"
/// movie.video?.orientation                                   // .rotate90CW
/// ```
public final class MovieFile {
    /// Facts of one video stream.
    public struct VideoStream: Sendable {
        public let index: Int
        public let codec: String
        /// Stored (coded) size; see ``displayedSize``.
        public let width: Int
        public let height: Int
        /// From the track matrix (display matrix side data).
        public let orientation: EXIFOrientation
        public let frameRate: Double?

        public var displayedSize: (width: Int, height: Int) { orientation.displayedSize(width: width, height: height) }
    }

    public struct AudioStream: Sendable {
        public let index: Int
        public let codec: String
        public let sampleRate: Int
    }

    public let path: String
    public let durationSeconds: Double?
    /// Container-level metadata: QuickTime `mdta` keys under their full names
    /// ("com.apple.quicktime.content.identifier"), plus "creation_time" from `mvhd`.
    public let metadata: [String: String]
    public let video: VideoStream?
    public let audio: AudioStream?

    // avformat_open_input → avformat_close_input (deinit).
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private let deadline: Deadline

    /// Opens and reads the header. Reading gives up after `timeLimit` seconds, so a
    /// hostile file cannot hang the caller.
    public init(path: String, timeLimit: Double = 20) throws {
        try FFmpegLibrary.load()
        self.path = path
        self.deadline = Deadline(seconds: timeLimit)
        guard var ctx = ff.avformat_alloc_context() else { throw FFmpegError(message: "out of memory", call: "avformat_alloc_context") }
        ctx.pointee.interrupt_callback = AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<Deadline>.fromOpaque(opaque).takeUnretainedValue().expired ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(deadline).toOpaque())
        var optional: UnsafeMutablePointer<AVFormatContext>? = ctx
        // On failure avformat_open_input frees the context and sets it to NULL.
        let rc = ff.avformat_open_input(&optional, path, nil, nil)
        guard rc >= 0, let opened = optional else { throw FFmpegError(code: rc, call: "avformat_open_input") }
        ctx = opened
        formatContext = ctx

        // The MOV/MP4 demuxer fills codec parameters from the sample descriptions; probing
        // packets (avformat_find_stream_info) is only needed when it could not.
        var streams = Self.streams(of: ctx)
        if streams.video.map({ $0.width <= 0 || $0.height <= 0 }) ?? true {
            let probe = ff.avformat_find_stream_info(ctx, nil)
            if probe >= 0 { streams = Self.streams(of: ctx) }
        }
        video = streams.video
        audio = streams.audio

        let d = ctx.pointee.duration
        durationSeconds = d > 0 && d != CFFmpeg_AV_NOPTS_VALUE() ? Double(d) / Double(CFFmpeg_AV_TIME_BASE()) : nil
        metadata = Self.dictionary(ctx.pointee.metadata)
    }

    deinit {
        if formatContext != nil { ff.avformat_close_input(&formatContext) }
    }

    static func dictionary(_ dict: OpaquePointer?) -> [String: String] {
        var out: [String: String] = [:]
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = ff.av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let k = e.pointee.key, let v = e.pointee.value { out[String(cString: k)] = String(cString: v) }
            entry = e
        }
        return out
    }

    static func streams(of ctx: UnsafeMutablePointer<AVFormatContext>) -> (video: VideoStream?, audio: AudioStream?) {
        var video: VideoStream?
        var audio: AudioStream?
        let n = Int(ctx.pointee.nb_streams)
        for i in 0..<n {
            guard let stream = ctx.pointee.streams[i], let par = stream.pointee.codecpar else { continue }
            let codec = ff.avcodec_get_name(par.pointee.codec_id).map { String(cString: $0) } ?? "unknown"
            switch par.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO where video == nil:
                // Cover art in MP4s is a video stream too; skip attached pictures.
                if stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { continue }
                let rate = stream.pointee.avg_frame_rate
                video = VideoStream(
                    index: i, codec: codec, width: Int(par.pointee.width), height: Int(par.pointee.height),
                    orientation: orientation(of: stream),
                    frameRate: rate.den > 0 && rate.num > 0 ? Double(rate.num) / Double(rate.den) : nil)
            case AVMEDIA_TYPE_AUDIO where audio == nil:
                audio = AudioStream(index: i, codec: codec, sampleRate: Int(par.pointee.sample_rate))
            default: break
            }
        }
        return (video, audio)
    }

    /// The track matrix as an EXIF orientation.
    ///
    /// As FFmpeg's own autorotation does: a negative determinant means a horizontal flip
    /// applied after the rotation; negating the first column removes it, leaving a pure
    /// rotation for av_display_rotation_get (which answers anticlockwise degrees).
    static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> EXIFOrientation {
        var size = 0
        guard let raw = ff.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return .up }
        var m = [Int32](repeating: 0, count: 9)
        raw.withMemoryRebound(to: Int32.self, capacity: 9) { p in for i in 0..<9 { m[i] = p[i] } }
        let flipped = Int64(m[0]) * Int64(m[4]) - Int64(m[1]) * Int64(m[3]) < 0
        if flipped { m[0] = -m[0]; m[3] = -m[3]; m[6] = -m[6] }
        let ccw = ff.av_display_rotation_get(m)
        guard ccw.isFinite else { return .up }
        let quarterTurnsCW = Int((-ccw / 90).rounded())
        let rotation = EXIFOrientation(quarterTurnsCW: quarterTurnsCW, mirrored: false)
        return flipped ? rotation.then(.upMirrored) : rotation
    }

    /// The first decodable frame of the video stream, scaled to fit `maxSide` and turned
    /// to display orientation.
    public func posterFrame(maxSide: Int) throws -> PixelBuffer<UInt8> {
        guard let ctx = formatContext, let video else { throw FFmpegError(message: "no video stream", call: "poster frame") }
        guard let stream = ctx.pointee.streams[video.index], let par = stream.pointee.codecpar else {
            throw FFmpegError(message: "video stream vanished", call: "poster frame")
        }
        guard let decoder = ff.avcodec_find_decoder(par.pointee.codec_id) else {
            throw FFmpegError(message: "no decoder for \(video.codec)", call: "avcodec_find_decoder")
        }
        // avcodec_alloc_context3 → avcodec_free_context; av_packet_alloc → av_packet_free;
        // av_frame_alloc → av_frame_free.
        var codec = ff.avcodec_alloc_context3(decoder)
        defer { ff.avcodec_free_context(&codec) }
        guard let codecCtx = codec else { throw FFmpegError(message: "out of memory", call: "avcodec_alloc_context3") }
        var rc = ff.avcodec_parameters_to_context(codecCtx, par)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_parameters_to_context") }
        if let refusal = DecodeLimits.refusal(width: Int(codecCtx.pointee.width), height: Int(codecCtx.pointee.height)) {
            throw FFmpegError(message: refusal, call: "the video's size")
        }
        codecCtx.pointee.thread_count = 1
        // A 320-pixel poster cannot show deblocking; skipping it saves a fifth of the decode.
        codecCtx.pointee.skip_loop_filter = AVDISCARD_ALL
        codecCtx.pointee.flags2 |= AV_CODEC_FLAG2_FAST
        rc = ff.avcodec_open2(codecCtx, decoder, nil)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_open2") }

        var packet = ff.av_packet_alloc()
        defer { ff.av_packet_free(&packet) }
        var frame = ff.av_frame_alloc()
        defer { ff.av_frame_free(&frame) }
        guard let packet, let frame else { throw FFmpegError(message: "out of memory", call: "av_frame_alloc") }

        var gotFrame = false
        var packetsRead = 0
        var flushing = false
        decode: while !gotFrame {
            if !flushing {
                rc = ff.av_read_frame(ctx, packet)
                if rc < 0 {
                    flushing = true
                    _ = ff.avcodec_send_packet(codecCtx, nil)
                } else {
                    defer { ff.av_packet_unref(packet) }
                    packetsRead += 1
                    if packetsRead > 2000 { break decode }  // no picture in the first 2000 packets
                    guard packet.pointee.stream_index == Int32(video.index) else { continue }
                    rc = ff.avcodec_send_packet(codecCtx, packet)
                    if rc < 0 && rc != CFFmpeg_AVERROR_EAGAIN() { continue }  // skip a damaged packet
                }
            }
            while true {
                rc = ff.avcodec_receive_frame(codecCtx, frame)
                if rc == 0 { gotFrame = true; break decode }
                if rc == CFFmpeg_AVERROR_EAGAIN() && !flushing { break }
                if rc == CFFmpeg_AVERROR_EOF() || flushing { break decode }
                throw FFmpegError(code: rc, call: "avcodec_receive_frame")
            }
        }
        guard gotFrame else { throw FFmpegError(message: "no frame could be decoded", call: "poster frame") }
        defer { ff.av_frame_unref(frame) }

        let srcW = Int(frame.pointee.width), srcH = Int(frame.pointee.height)
        guard srcW > 0, srcH > 0 else { throw FFmpegError(message: "decoded frame is empty", call: "poster frame") }
        let scale = min(1, Double(maxSide) / Double(max(srcW, srcH)))
        let dstW = max(1, Int((Double(srcW) * scale).rounded())), dstH = max(1, Int((Double(srcH) * scale).rounded()))
        // sws_getContext → sws_freeContext.
        guard let sws = ff.sws_getContext(
            Int32(srcW), Int32(srcH), AVPixelFormat(frame.pointee.format), Int32(dstW), Int32(dstH), AV_PIX_FMT_RGB24,
            SWS_AREA, nil, nil, nil)
        else { throw FFmpegError(message: "cannot convert pixel format \(frame.pointee.format)", call: "sws_getContext") }
        defer { ff.sws_freeContext(sws) }
        var pixels = PixelBuffer<UInt8>(width: dstW, height: dstH, channels: 3)
        let source = FramePlanes(frame)
        pixels.components.withUnsafeMutableBufferPointer { dst in
            var dstPlanes: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
            var dstStrides: [Int32] = [Int32(dstW * 3), 0, 0, 0]
            _ = ff.sws_scale(sws, source.sources, source.strides, 0, Int32(srcH), &dstPlanes, &dstStrides)
        }
        return pixels.applying(video.orientation)
    }
}

/// A point in time after which FFmpeg's blocking reads give up (via its interrupt callback).
/// `@unchecked Sendable`: immutable after init (`end`).
final class Deadline: @unchecked Sendable {
    // Written once in init, then only read (from FFmpeg's callback on the same thread).
    private let end: UInt64

    init(seconds: Double) {
        end = Deadline.now() + UInt64(max(0, seconds) * 1e9)
    }

    var expired: Bool { Deadline.now() > end }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
