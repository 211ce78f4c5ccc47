internal import CFFmpeg
import Imaging

/// Decodes a movie's first video stream frame by frame into RGB pixels as stored (the
/// track's rotation is reported in `orientation`, not applied), with each frame's time.
/// libavformat/libavcodec: avformat_open_input → avformat_close_input,
/// avcodec_alloc_context3 → avcodec_free_context, sws_getContext → sws_freeContext.
public final class MovieFrameReader {
    public struct DecodedFrame {
        public var pixels: PixelBuffer<UInt8>
        /// Presentation time in `timeBase` units, and in seconds from the stream's start.
        public var pts: Int64
        public var seconds: Double
    }

    public let width: Int
    public let height: Int
    public let orientation: EXIFOrientation
    /// The stream's time base as numerator/denominator.
    public let timeBase: (numerator: Int32, denominator: Int32)
    /// Average frames per second (0 when the file does not say).
    public let frameRate: Double
    /// Full-range (JPEG) levels, as iPhones record.
    public let fullRange: Bool
    /// The video's codec when camlib can also write it (H.264 or HEVC), else nil.
    public let codec: MovieWriter.Codec?
    /// Frames the container says the stream has (its sample count), or one estimated from
    /// duration and frame rate; 0 when neither is known. For progress, not for checks.
    public let expectedFrames: Int
    let colour: MovieWriter.Colour
    let path: String

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var decoder: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var toRGB: OpaquePointer?
    /// Converts and averages frames down to `averagedSize` (`next(averagedTo:)`).
    private var toAveragedRGB: OpaquePointer?
    private var averagedSize = (width: 0, height: 0)
    private let streamIndex: Int32
    private let startTime: Int64
    private var inputEnded = false
    private var decoderDrained = false

    /// `decoderThreads`: frame threads for the decoder; 0 for FFmpeg's own count (one more
    /// than the cores).
    public init(path: String, decoderThreads: Int = 0) throws {
        try FFmpegLibrary.load()
        self.path = path
        // Until every property is set, failures free what was opened so far.
        var formatContext: UnsafeMutablePointer<AVFormatContext>?
        var decoderContext: UnsafeMutablePointer<AVCodecContext>?
        var opened = false
        defer {
            if !opened {
                ff.avcodec_free_context(&decoderContext)
                ff.avformat_close_input(&formatContext)
            }
        }
        var rc = ff.avformat_open_input(&formatContext, path, nil, nil)
        guard rc >= 0, let ctx = formatContext else { throw FFmpegError(code: rc, call: "avformat_open_input") }
        rc = ff.avformat_find_stream_info(ctx, nil)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avformat_find_stream_info") }
        let count = Int(ctx.pointee.nb_streams)
        guard let index = (0..<count).first(where: { ctx.pointee.streams[$0]?.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }),
            let stream = ctx.pointee.streams[index], let par = stream.pointee.codecpar
        else { throw FFmpegError(message: "no video stream", call: "avformat_find_stream_info") }
        guard let codec = ff.avcodec_find_decoder(par.pointee.codec_id) else { throw FFmpegError(message: "no decoder for the video", call: "avcodec_find_decoder") }
        decoderContext = ff.avcodec_alloc_context3(codec)
        guard let dec = decoderContext else { throw FFmpegError(message: "out of memory", call: "avcodec_alloc_context3") }
        rc = ff.avcodec_parameters_to_context(dec, par)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_parameters_to_context") }
        dec.pointee.pkt_timebase = stream.pointee.time_base
        if let refusal = DecodeLimits.refusal(width: Int(dec.pointee.width), height: Int(dec.pointee.height)) {
            throw FFmpegError(message: refusal, call: "the video's size")
        }
        // Frame threads: decoding runs ahead while the caller filters and encodes the
        // previous frames (FFmpeg's default is one thread).
        dec.pointee.thread_count = Int32(clamping: max(0, decoderThreads))
        rc = ff.avcodec_open2(dec, codec, nil)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_open2 (decoder)") }
        let newPacket = ff.av_packet_alloc(), newFrame = ff.av_frame_alloc()
        guard newPacket != nil, newFrame != nil else {
            var p = newPacket, f = newFrame
            ff.av_packet_free(&p)
            ff.av_frame_free(&f)
            throw FFmpegError(message: "out of memory", call: "av_frame_alloc")
        }
        streamIndex = Int32(index)
        width = Int(par.pointee.width)
        height = Int(par.pointee.height)
        orientation = MovieFile.orientation(of: stream)
        timeBase = (stream.pointee.time_base.num, stream.pointee.time_base.den)
        let rate = stream.pointee.avg_frame_rate
        frameRate = rate.den > 0 ? Double(rate.num) / Double(rate.den) : 0
        self.codec = par.pointee.codec_id == AV_CODEC_ID_H264 ? .h264 : par.pointee.codec_id == AV_CODEC_ID_HEVC ? .hevc : nil
        fullRange = par.pointee.color_range == AVCOL_RANGE_JPEG || AVPixelFormat(par.pointee.format) == AV_PIX_FMT_YUVJ420P
        colour = MovieWriter.Colour(primaries: par.pointee.color_primaries, transfer: par.pointee.color_trc, matrix: par.pointee.color_space)
        startTime = stream.pointee.start_time == CFFmpeg_AV_NOPTS_VALUE() ? 0 : stream.pointee.start_time
        if stream.pointee.nb_frames > 0 {
            expectedFrames = Int(stream.pointee.nb_frames)
        } else if stream.pointee.duration > 0, stream.pointee.time_base.den > 0, frameRate > 0 {
            let seconds = Double(stream.pointee.duration) * Double(stream.pointee.time_base.num) / Double(stream.pointee.time_base.den)
            expectedFrames = Int((seconds * frameRate).rounded())
        } else {
            expectedFrames = 0
        }
        format = ctx
        decoder = dec
        packet = newPacket
        frame = newFrame
        opened = true
    }

    deinit {
        ff.sws_freeContext(toRGB)
        ff.sws_freeContext(toAveragedRGB)
        ff.av_packet_free(&packet)
        ff.av_frame_free(&frame)
        ff.avcodec_free_context(&decoder)
        ff.avformat_close_input(&format)
    }

    /// The next frame in presentation order, or nil at the end.
    public func next() throws -> DecodedFrame? {
        try nextDecoded { try convert($0) }
    }

    /// The next frame in presentation order averaged down to `width`×`height` (each pixel
    /// the mean of the area it covers), converted to RGB at that size only: for a filter
    /// that decides from a working-size picture and reads nothing else of the frame, a
    /// full-size RGB frame would be work thrown away. An 8-bit 4:2:0 frame halved is
    /// averaged by camlib (`PixelBuffer.halvedRGB`: its chroma is at that size already);
    /// any other by swscale's area filter.
    public func next(averagedTo width: Int, _ height: Int) throws -> DecodedFrame? {
        precondition(width > 0 && height > 0 && width <= self.width && height <= self.height, "averaged down, not up")
        return try nextDecoded { try convert($0, width: width, height: height) }
    }

    private func nextDecoded(_ convert: (UnsafeMutablePointer<AVFrame>) throws -> DecodedFrame) throws -> DecodedFrame? {
        guard let dec = decoder, let format, let packet, let frame else { return nil }
        while !decoderDrained {
            let r = ff.avcodec_receive_frame(dec, frame)
            if r >= 0 {
                defer { ff.av_frame_unref(frame) }
                return try convert(frame)
            }
            if r == CFFmpeg_AVERROR_EOF() {
                decoderDrained = true
                break
            }
            guard r == CFFmpeg_AVERROR_EAGAIN() else { throw FFmpegError(code: r, call: "avcodec_receive_frame") }
            if inputEnded {
                decoderDrained = true
                break
            }
            // Feed the decoder the next packet of our stream (or the end).
            while true {
                if ff.av_read_frame(format, packet) < 0 {
                    inputEnded = true
                    _ = ff.avcodec_send_packet(dec, nil)
                    break
                }
                defer { ff.av_packet_unref(packet) }
                guard packet.pointee.stream_index == streamIndex else { continue }
                let s = ff.avcodec_send_packet(dec, packet)
                guard s >= 0 || s == CFFmpeg_AVERROR_EAGAIN() else { throw FFmpegError(code: s, call: "avcodec_send_packet") }
                break
            }
        }
        return nil
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> DecodedFrame {
        try convert(frame, width: width, height: height)
    }

    /// The frame as RGB at `width`×`height`: its own size, or averaged down to a smaller one.
    private func convert(_ frame: UnsafeMutablePointer<AVFrame>, width ow: Int, height oh: Int) throws -> DecodedFrame {
        let fw = Int(frame.pointee.width), fh = Int(frame.pointee.height)
        guard fw == width, fh == height else { throw FFmpegError(message: "the video changes size mid-stream", call: "decode") }
        let full = ow == fw && oh == fh
        let pixelFormat = AVPixelFormat(frame.pointee.format)
        // An 8-bit 4:2:0 frame halved: a 2x2 average of luma beside the chroma it already
        // has, converted as swscale would (BT.709, full-range RGB).
        if ow * 2 == fw, oh * 2 == fh, pixelFormat == AV_PIX_FMT_YUV420P || pixelFormat == AV_PIX_FMT_YUVJ420P,
            let planes = YCbCr420Planes(frame, fullRange: fullRange || pixelFormat == AV_PIX_FMT_YUVJ420P),
            let halved = PixelBuffer.halvedRGB(planes)
        {
            return stamped(halved, frame)
        }
        if full ? toRGB == nil : (toAveragedRGB == nil || averagedSize != (ow, oh)) {
            // Same size: each pixel converted (point sampling of nothing); smaller: averaged.
            let context = ff.sws_getContext(
                Int32(fw), Int32(fh), AVPixelFormat(frame.pointee.format), Int32(ow), Int32(oh), AV_PIX_FMT_RGB24, full ? SWS_POINT : SWS_AREA, nil, nil, nil)
            guard context != nil else { throw FFmpegError(message: "cannot convert the video's pixels", call: "sws_getContext") }
            let coefficients = ff.sws_getCoefficients(SWS_CS_ITU709)
            _ = ff.sws_setColorspaceDetails(context, coefficients, fullRange ? 1 : 0, coefficients, 1, 0, 1 << 16, 1 << 16)
            if full {
                toRGB = context
            } else {
                ff.sws_freeContext(toAveragedRGB)
                (toAveragedRGB, averagedSize) = (context, (ow, oh))
            }
        }
        let planes = FramePlanes(frame)
        let rgb = PixelBuffer<UInt8>(width: ow, height: oh, channels: 3) { dst in
            var out: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(ow * 3), 0, 0, 0]
            _ = ff.sws_scale(full ? toRGB : toAveragedRGB, planes.sources, planes.strides, 0, Int32(fh), &out, &strides)
        }
        return stamped(rgb, frame)
    }

    /// `pixels` with the frame's presentation time.
    private func stamped(_ pixels: PixelBuffer<UInt8>, _ frame: UnsafeMutablePointer<AVFrame>) -> DecodedFrame {
        var pts = frame.pointee.best_effort_timestamp
        if pts == CFFmpeg_AV_NOPTS_VALUE() { pts = frame.pointee.pts == CFFmpeg_AV_NOPTS_VALUE() ? startTime : frame.pointee.pts }
        let seconds = Double(pts - startTime) * Double(timeBase.numerator) / Double(max(1, timeBase.denominator))
        return DecodedFrame(pixels: pixels, pts: pts, seconds: max(0, seconds))
    }
}
