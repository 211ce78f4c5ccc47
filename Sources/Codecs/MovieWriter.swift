internal import CFFmpeg
import Foundation
import Imaging

/// Writes a MOV holding one video stream, and with `audioSampleRate` an AAC one: RGB frames
/// through a `VideoEncoder` and samples through an `AudioEncoder` as they come (`append`,
/// `appendAudio`), or packets encoded earlier (`write(packets:…)`, a Live Photo's span of
/// its rings). `finish()` writes the index, after which the file plays; without it the
/// file is incomplete, so callers write to a temporary name.
/// avformat_alloc_output_context2 → avformat_free_context; avio_open → avio_closep.
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
        /// Frames between keyframes (nil: the encoder's choice).
        public var keyframeInterval: Int?
        /// A ceiling on the bit rate (bits/s) for the constant-quality encode: x264/x265
        /// VBV with a buffer of `bitRateWindow` seconds. nil: quality alone decides.
        public var maximumBitRate: Int?
        /// The VBV buffer, in seconds at the maximum rate: how far a stretch of frames may
        /// borrow bits from the next. A short clip's total can exceed its cap by about this
        /// much, so renders use half a second.
        public var bitRateWindow: Double = 1
        /// Sound: an AAC track at this sample rate (mono), fed with `appendAudio`; nil for
        /// a silent movie.
        public var audioSampleRate: Int?

        public init(codec: Codec = .hevc, width: Int, height: Int) {
            self.codec = codec
            self.width = width
            self.height = height
        }
    }

    public let settings: Settings
    public var framesWritten: Int { packetsWritten }
    private var encoder: VideoEncoder?
    private var audioEncoder: AudioEncoder?
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var audioStream: UnsafeMutablePointer<AVStream>?
    /// Subtracted from audio packet times (samples): a movie cut from a ring starts at 0.
    private var audioOrigin: Int64 = 0
    private var soundStarted = false
    private var avPacket: UnsafeMutablePointer<AVPacket>?
    private var packetsWritten = 0
    private var finished = false
    /// Subtracted from packet times: a movie cut from a ring starts at 0.
    private var origin: Int64 = 0
    /// The encoder's time base, in which packets are stamped.
    private var packetTimeBase = AVRational(num: 1, den: 600)

    /// A movie encoded as frames are appended.
    public convenience init(path: String, settings: Settings) throws {
        let audio = try settings.audioSampleRate.map { try AudioEncoder(sampleRate: $0) }
        try self.init(path: path, encoder: VideoEncoder(settings: settings), ownsEncoder: true, audio: audio)
    }

    /// Writes `packets` of `encoder` (from a keyframe on) as a complete movie at `path`,
    /// its times starting at 0; `settings` adds the file's metadata and orientation.
    /// With `audio`, the packets of `audioEncoder` from the one that holds the first video
    /// frame's moment on (the sound stays in step: both start at that moment, 0).
    public static func write(
        packets: [VideoEncoder.Packet], of encoder: VideoEncoder, audio: [AudioEncoder.Packet] = [], of audioEncoder: AudioEncoder? = nil,
        to path: String, settings: Settings
    ) throws {
        guard let first = packets.first, first.isKeyframe else {
            throw FFmpegError(message: "a movie must start with a keyframe", call: "MovieWriter.write")
        }
        var settings = settings
        settings.audioSampleRate = audio.isEmpty ? nil : audioEncoder?.sampleRate
        let writer = try MovieWriter(path: path, encoder: encoder, ownsEncoder: false, audio: audioEncoder, settings: settings)
        writer.origin = first.pts
        if let audioEncoder, !audio.isEmpty {
            let tb = encoder.settings.timeBase
            writer.audioOrigin = first.pts * Int64(audioEncoder.sampleRate) * Int64(tb.numerator) / Int64(tb.denominator)
        }
        for p in packets { try writer.mux(p) }
        for p in audio where p.pts + p.duration > writer.audioOrigin { try writer.muxAudio(p) }
        try writer.finish()
    }

    private init(path: String, encoder: VideoEncoder, ownsEncoder: Bool, audio: AudioEncoder? = nil, settings: Settings? = nil) throws {
        try FFmpegLibrary.load()
        self.settings = settings ?? encoder.settings
        self.encoder = ownsEncoder ? encoder : nil
        self.audioEncoder = ownsEncoder ? audio : nil
        do {
            try open(path: path, codec: encoder, audio: self.settings.audioSampleRate != nil ? audio : nil)
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    private func open(path: String, codec: VideoEncoder, audio: AudioEncoder?) throws {
        let s = settings
        guard let enc = codec.context else { throw FFmpegError(message: "the encoder is closed", call: "MovieWriter") }
        var rc = ff.avformat_alloc_output_context2(&format, nil, "mov", path)
        guard rc >= 0, let fmt = format else { throw FFmpegError(code: rc, call: "avformat_alloc_output_context2") }
        guard let st = ff.avformat_new_stream(fmt, nil) else { throw FFmpegError(message: "out of memory", call: "avformat_new_stream") }
        stream = st
        rc = ff.avcodec_parameters_from_context(st.pointee.codecpar, enc)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_parameters_from_context") }
        st.pointee.time_base = enc.pointee.time_base
        packetTimeBase = enc.pointee.time_base
        st.pointee.avg_frame_rate = enc.pointee.framerate
        if codec.settings.codec == .hevc {
            // 'hvc1', as Apple writes and plays it.
            st.pointee.codecpar.pointee.codec_tag = UInt32(0x68) | UInt32(0x76) << 8 | UInt32(0x63) << 16 | UInt32(0x31) << 24
        }
        if s.orientation != .up {
            try addDisplayMatrix(st, s.orientation)
        }
        if let audio, let actx = audio.context {
            guard let ast = ff.avformat_new_stream(fmt, nil) else { throw FFmpegError(message: "out of memory", call: "avformat_new_stream") }
            audioStream = ast
            rc = ff.avcodec_parameters_from_context(ast.pointee.codecpar, actx)
            guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_parameters_from_context (audio)") }
            ast.pointee.time_base = actx.pointee.time_base
        }
        var muxOptions: OpaquePointer?
        defer { ff.av_dict_free(&muxOptions) }
        _ = ff.av_dict_set(&muxOptions, "video_track_timescale", String(codec.settings.timeBase.denominator), 0)
        if let created = s.creationTime {
            let f = ISO8601DateFormatter()
            f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            _ = ff.av_dict_set(&fmt.pointee.metadata, "creation_time", f.string(from: created), 0)
        }
        if !s.quickTimeKeys.isEmpty {
            // Written as mdta keys, as iPhones do, instead of the older udta ©xyz atoms.
            _ = ff.av_dict_set(&muxOptions, "movflags", "use_metadata_tags", 0)
            for (key, value) in s.quickTimeKeys { _ = ff.av_dict_set(&fmt.pointee.metadata, key, value, 0) }
        }
        rc = ff.avio_open(&fmt.pointee.pb, path, AVIO_FLAG_WRITE)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avio_open") }
        rc = ff.avformat_write_header(fmt, &muxOptions)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avformat_write_header") }
        avPacket = ff.av_packet_alloc()
        guard avPacket != nil else { throw FFmpegError(message: "out of memory", call: "av_packet_alloc") }
    }

    /// The track's display matrix for an EXIF orientation: the rotation that shows the
    /// stored frames upright, mirrored when the orientation mirrors.
    private func addDisplayMatrix(_ st: UnsafeMutablePointer<AVStream>, _ orientation: EXIFOrientation) throws {
        // av_stream_new_side_data: the stream owns the 9 Int32s it returns.
        guard let raw = ff.av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 36) else {
            throw FFmpegError(message: "out of memory", call: "av_stream_new_side_data")
        }
        // Readers (MovieFile.orientation, FFmpeg's autorotate) take a negative determinant
        // as a horizontal flip after the rotation.
        let rotation = orientation.isMirrored ? orientation.then(.upMirrored) : orientation
        raw.withMemoryRebound(to: Int32.self, capacity: 9) { m in
            // FFmpeg's angle for a display turn of q quarters clockwise is +90q here: the
            // readers (MovieFile.orientation, av_display_rotation_get) give -90q back.
            ff.av_display_rotation_set(m, Double(90 * rotation.quarterTurnsCW))
            if orientation.isMirrored { ff.av_display_matrix_flip(m, 1, 0) }
        }
    }

    /// Encodes one frame (RGB, the size of the movie) shown from `pts` (time-base units).
    /// Timestamps must increase; a frame at or before the previous one is dropped.
    public func append(_ pixels: PixelBuffer<UInt8>, pts: Int64) throws {
        guard !finished, let encoder else { throw FFmpegError(message: "the movie is already finished", call: "MovieWriter.append") }
        for p in try encoder.encode(pixels, pts: pts) { try mux(p) }
    }

    /// Encodes one frame shown from `pts` that `draw` makes straight into the encoder's
    /// Y'CbCr 4:2:0 planes (BT.709, the movie's range), with no RGB frame and no
    /// conversion. Timestamps as for `append(_:pts:)`.
    public func append(pts: Int64, drawing draw: (YCbCr420Planes) -> Void) throws {
        guard !finished, let encoder else { throw FFmpegError(message: "the movie is already finished", call: "MovieWriter.append") }
        for p in try encoder.encode(pts: pts, drawing: draw) { try mux(p) }
    }

    /// Encodes sound: mono samples (-1…1) from sample `pts` (1/audioSampleRate units, the
    /// movie's time). Samples before 0 are left out; a gap is silence.
    public func appendAudio(_ samples: [Float], pts: Int64) throws {
        guard !finished, let audioEncoder, audioStream != nil else { return }
        var samples = samples[...], pts = pts
        if pts < 0 {
            samples = samples.dropFirst(Int(min(-pts, Int64(samples.count))))
            pts = 0
        }
        guard !samples.isEmpty else { return }
        var given = Array(samples)
        if !soundStarted {
            // Sound that starts after the picture starts with silence at 0: the encoder's
            // priming (1024 samples AAC puts first) is then what the edit list skips, and
            // the first sound heard stays in its place.
            given = [Float](repeating: 0, count: Int(min(pts, Int64(audioEncoder.sampleRate) * 10))) + given
            pts = 0
            soundStarted = true
        }
        for p in try audioEncoder.encode(given, pts: pts) { try muxAudio(p) }
    }

    /// Flushes the encoders and writes the movie's index. The file is complete after this.
    public func finish() throws {
        guard !finished, let format else { return }
        if let encoder { for p in try encoder.finish() { try mux(p) } }
        if let audioEncoder, audioStream != nil { for p in try audioEncoder.finish() { try muxAudio(p) } }
        let rc = ff.av_write_trailer(format)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_write_trailer") }
        finished = true
        close()
    }

    private func mux(_ p: VideoEncoder.Packet) throws {
        guard let format, let stream, let pkt = avPacket else { return }
        let rc = ff.av_new_packet(pkt, Int32(p.data.count))
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_new_packet") }
        p.data.withUnsafeBufferPointer { pkt.pointee.data.update(from: $0.baseAddress!, count: p.data.count) }
        pkt.pointee.pts = p.pts - origin
        pkt.pointee.dts = p.pts - origin  // no B-frames: decoding order is presentation order
        if p.isKeyframe { pkt.pointee.flags |= AV_PKT_FLAG_KEY }
        pkt.pointee.stream_index = stream.pointee.index
        ff.av_packet_rescale_ts(pkt, packetTimeBase, stream.pointee.time_base)
        // Takes the packet's reference.
        let w = ff.av_interleaved_write_frame(format, pkt)
        guard w >= 0 else { throw FFmpegError(code: w, call: "av_interleaved_write_frame") }
        packetsWritten += 1
    }

    private func muxAudio(_ p: AudioEncoder.Packet) throws {
        guard let format, let audioStream, let pkt = avPacket, let rate = settings.audioSampleRate else { return }
        let rc = ff.av_new_packet(pkt, Int32(p.data.count))
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_new_packet") }
        p.data.withUnsafeBufferPointer { pkt.pointee.data.update(from: $0.baseAddress!, count: p.data.count) }
        pkt.pointee.pts = p.pts - audioOrigin
        pkt.pointee.dts = p.pts - audioOrigin
        pkt.pointee.duration = p.duration
        pkt.pointee.flags |= AV_PKT_FLAG_KEY
        pkt.pointee.stream_index = audioStream.pointee.index
        ff.av_packet_rescale_ts(pkt, AVRational(num: 1, den: Int32(rate)), audioStream.pointee.time_base)
        let w = ff.av_interleaved_write_frame(format, pkt)
        guard w >= 0 else { throw FFmpegError(code: w, call: "av_interleaved_write_frame (audio)") }
    }

    private func close() {
        ff.av_packet_free(&avPacket)
        encoder = nil
        audioEncoder = nil
        if let format {
            _ = ff.avio_closep(&format.pointee.pb)
            ff.avformat_free_context(format)
            self.format = nil
        }
    }
}
