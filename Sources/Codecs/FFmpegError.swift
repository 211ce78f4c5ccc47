internal import CFFmpeg

/// A failure reported by FFmpeg: the AVERROR code, its text, and the call that failed.
public struct FFmpegError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let call: String

    public var description: String { "\(call): \(message)" }

    /// The `call` of the error FFmpeg's libraries not loading gives.
    static let loading = "dlopen"
    /// FFmpeg itself is missing or broken, rather than a file it was given.
    public var isLibraryMissing: Bool { call == Self.loading }

    /// The failure came from making a movie (encoding or writing it), not reading one: a
    /// full disk is a write's failure, not the original's.
    public var isWriting: Bool {
        ["av_interleaved_write_frame", "av_write_trailer", "avformat_write_header", "avio_open", "avformat_alloc_output_context2",
         "avcodec_send_frame", "avcodec_receive_packet", "avcodec_open2 (encoder)", "avcodec_open2 (aac)", "MovieWriter", "VideoEncoder",
         "AudioEncoder"].contains { call.hasPrefix($0) }
    }

    init(code: Int32, call: String) {
        self.code = code
        self.call = call
        var buffer = [CChar](repeating: 0, count: 256)
        _ = ff.av_strerror(code, &buffer, buffer.count)
        self.message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    init(message: String, call: String) {
        self.code = -1
        self.message = message
        self.call = call
    }
}
