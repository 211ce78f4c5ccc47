internal import CFFmpeg
import Foundation
import Imaging

/// Encodes RGB frames into a MOV holding one video stream (libavcodec: libx265 for HEVC,
/// libx264 for H.264; libavformat's mov muxer). Frames are converted to 4:2:0 with the
/// colour description given, time-stamped in `timeBase` units, and written as they come;
/// `finish()` drains the encoder and writes the index, after which the file plays.
/// Without `finish()`, the file is incomplete: callers write to a temporary name.
public final class MovieWriter {
    public enum Codec: String, Sendable, CaseIterable {
        case hevc, h264
        var encoderName: String { self == .hevc ? "libx265" : "libx264" }
    }

    /// Colour primaries, transfer and matrix (FFmpeg's enums); BT.709 by default.
    struct Colour {
        var primaries = AVCOL_PRI_BT709
        var transfer = AVCOL_TRC_BT709
        var matrix = AVCOL_SPC_BT709
    }

    public struct Settings: Sendable {
        public var codec: Codec = .hevc
        public var width: Int
        public var height: Int
        /// Time base of the timestamps passed to `append`, e.g. 1/600 (QuickTime's).
        public var timeBase: (numerator: Int32, denominator: Int32) = (1, 600)
        /// Nominal frames per second (rate control, the track's declared rate).
        public var frameRate: Double = 30
        /// x265/x264 speed preset.
        public var preset = "ultrafast"
        /// Constant rate factor: lower is better quality.
        public var crf = 23
        /// Full-range levels (as iPhones record) rather than video range.
        public var fullRange = false
        /// Written as the track's display matrix, so players turn the frames.
        public var orientation: EXIFOrientation = .up
        var colour = Colour()
        /// The movie's creation time (mvhd, in UTC).
        public var creationTime: Date?
        /// QuickTime `mdta` keys, e.g. com.apple.quicktime.make, .model, .creationdate.
        public var quickTimeKeys: [(key: String, value: String)] = []

        public init(codec: Codec = .hevc, width: Int, height: Int) {
            self.codec = codec
            self.width = width
            self.height = height
        }
    }

    public let settings: Settings
    public private(set) var framesWritten = 0
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var encoder: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var fromRGB: OpaquePointer?
    private var finished = false
    private var lastPTS: Int64 = Int64.min

    public init(path: String, settings: Settings) throws {
        FFmpegLibrary.ensureInitialized()
        self.settings = settings
        do {
            try open(path: path)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func open(path: String) throws {
        let s = settings
        guard s.width > 0, s.height > 0, s.width % 2 == 0, s.height % 2 == 0 else {
            throw FFmpegError(message: "a 4:2:0 movie needs an even, non-zero size (got \(s.width)x\(s.height))", call: "MovieWriter")
        }
        guard let codec = avcodec_find_encoder_by_name(s.codec.encoderName) else {
            throw FFmpegError(message: "FFmpeg has no \(s.codec.encoderName) encoder", call: "avcodec_find_encoder_by_name")
        }
        encoder = avcodec_alloc_context3(codec)
        guard let enc = encoder else { throw FFmpegError(message: "out of memory", call: "avcodec_alloc_context3") }
        enc.pointee.width = Int32(s.width)
        enc.pointee.height = Int32(s.height)
        enc.pointee.time_base = AVRational(num: s.timeBase.numerator, den: s.timeBase.denominator)
        enc.pointee.framerate = av_d2q(s.frameRate, 100_000)
        enc.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        enc.pointee.color_range = s.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        enc.pointee.color_primaries = s.colour.primaries
        enc.pointee.color_trc = s.colour.transfer
        enc.pointee.colorspace = s.colour.matrix
        enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        // av_dict_set → av_dict_free.
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "preset", s.preset, 0)
        av_dict_set(&options, "crf", String(s.crf), 0)
        // No B-frames: decoding order is presentation order, which keeps edit lists
        // simple and lets a recording stop at any frame.
        if s.codec == .hevc {
            av_dict_set(&options, "x265-params", "bframes=0:log-level=error", 0)
        } else {
            av_dict_set(&options, "bf", "0", 0)
        }
        var rc = avcodec_open2(enc, codec, &options)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_open2 (encoder)") }

        // avformat_alloc_output_context2 → avformat_free_context; avio_open → avio_closep.
        rc = avformat_alloc_output_context2(&format, nil, "mov", path)
        guard rc >= 0, let fmt = format else { throw FFmpegError(code: rc, call: "avformat_alloc_output_context2") }
        guard let st = avformat_new_stream(fmt, nil) else { throw FFmpegError(message: "out of memory", call: "avformat_new_stream") }
        stream = st
        rc = avcodec_parameters_from_context(st.pointee.codecpar, enc)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_parameters_from_context") }
        st.pointee.time_base = enc.pointee.time_base
        if s.codec == .hevc {
            // 'hvc1', as Apple writes and plays it.
            st.pointee.codecpar.pointee.codec_tag = UInt32(0x68) | UInt32(0x76) << 8 | UInt32(0x63) << 16 | UInt32(0x31) << 24
        }
        if s.orientation != .up {
            try addDisplayMatrix(st, s.orientation)
        }
        var muxOptions: OpaquePointer?
        defer { av_dict_free(&muxOptions) }
        av_dict_set(&muxOptions, "video_track_timescale", String(s.timeBase.denominator), 0)
        if let created = s.creationTime {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            av_dict_set(&fmt.pointee.metadata, "creation_time", f.string(from: created), 0)
        }
        if !s.quickTimeKeys.isEmpty {
            // Written as mdta keys, as iPhones do, instead of the older udta ©xyz atoms.
            av_dict_set(&muxOptions, "movflags", "use_metadata_tags", 0)
            for (key, value) in s.quickTimeKeys { av_dict_set(&fmt.pointee.metadata, key, value, 0) }
        }
        rc = avio_open(&fmt.pointee.pb, path, AVIO_FLAG_WRITE)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avio_open") }
        rc = avformat_write_header(fmt, &muxOptions)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avformat_write_header") }

        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let frame, packet != nil else { throw FFmpegError(message: "out of memory", call: "av_frame_alloc") }
        frame.pointee.format = enc.pointee.pix_fmt.rawValue
        frame.pointee.width = Int32(s.width)
        frame.pointee.height = Int32(s.height)
        rc = av_frame_get_buffer(frame, 0)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_frame_get_buffer") }
        fromRGB = sws_getContext(
            Int32(s.width), Int32(s.height), AV_PIX_FMT_RGB24, Int32(s.width), Int32(s.height), enc.pointee.pix_fmt, SWS_POINT, nil, nil, nil)
        guard fromRGB != nil else { throw FFmpegError(message: "cannot convert RGB to 4:2:0", call: "sws_getContext") }
        let coefficients = sws_getCoefficients(SWS_CS_ITU709)
        _ = sws_setColorspaceDetails(fromRGB, coefficients, 1, coefficients, s.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
    }

    /// The track's display matrix for an EXIF orientation: the rotation that shows the
    /// stored frames upright, mirrored when the orientation mirrors.
    private func addDisplayMatrix(_ st: UnsafeMutablePointer<AVStream>, _ orientation: EXIFOrientation) throws {
        // av_stream_new_side_data: the stream owns the 9 Int32s it returns.
        guard let raw = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
            throw FFmpegError(message: "out of memory", call: "av_stream_new_side_data")
        }
        // Readers (MovieFile.orientation, FFmpeg's autorotate) take a negative determinant
        // as a horizontal flip after the rotation.
        let rotation = orientation.isMirrored ? orientation.then(.upMirrored) : orientation
        raw.withMemoryRebound(to: Int32.self, capacity: 9) { m in
            // FFmpeg's angle for a display turn of q quarters clockwise is +90q here: the
            // readers (MovieFile.orientation, av_display_rotation_get) give -90q back.
            av_display_rotation_set(m, Double(90 * rotation.quarterTurnsCW))
            if orientation.isMirrored { av_display_matrix_flip(m, 1, 0) }
        }
    }

    /// Encodes one frame (RGB, the size of the movie) shown from `pts` (time-base units).
    /// Timestamps must increase; a frame at or before the previous one is dropped.
    public func append(_ pixels: PixelBuffer<UInt8>, pts: Int64) throws {
        guard !finished, let enc = encoder, let frame else { throw FFmpegError(message: "the movie is already finished", call: "MovieWriter.append") }
        guard pixels.width == settings.width, pixels.height == settings.height, pixels.channels == 3 else {
            throw FFmpegError(message: "a \(pixels.width)x\(pixels.height) frame in a \(settings.width)x\(settings.height) movie", call: "MovieWriter.append")
        }
        guard pts > lastPTS else { return }
        lastPTS = pts
        var rc = av_frame_make_writable(frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_frame_make_writable") }
        let planes = FramePlanes(frame)
        pixels.components.withUnsafeBufferPointer { src in
            var input: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
            var strides: [Int32] = [Int32(pixels.width * 3), 0, 0, 0]
            _ = sws_scale(fromRGB, &input, &strides, 0, Int32(pixels.height), planes.planes, planes.strides)
        }
        frame.pointee.pts = pts
        rc = avcodec_send_frame(enc, frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_send_frame") }
        framesWritten += 1
        try drain()
    }

    /// Flushes the encoder and writes the movie's index. The file is complete after this.
    public func finish() throws {
        guard !finished, let enc = encoder, let format else { return }
        _ = avcodec_send_frame(enc, nil)
        try drain()
        let rc = av_write_trailer(format)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_write_trailer") }
        finished = true
        close()
    }

    private func drain() throws {
        guard let enc = encoder, let packet, let format, let stream else { return }
        while true {
            let r = avcodec_receive_packet(enc, packet)
            if r == CFFmpeg_AVERROR_EAGAIN() || r == CFFmpeg_AVERROR_EOF() { return }
            guard r >= 0 else { throw FFmpegError(code: r, call: "avcodec_receive_packet") }
            av_packet_rescale_ts(packet, enc.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            // Takes the packet's reference.
            let w = av_interleaved_write_frame(format, packet)
            guard w >= 0 else { throw FFmpegError(code: w, call: "av_interleaved_write_frame") }
        }
    }

    private func close() {
        sws_freeContext(fromRGB)
        fromRGB = nil
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&encoder)
        if let format {
            avio_closep(&format.pointee.pb)
            avformat_free_context(format)
            self.format = nil
        }
    }
}
