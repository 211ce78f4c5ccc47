internal import CFFmpeg

/// FFmpeg, loaded the first time camlib reads or writes a movie or scales pixels (see
/// `CFFmpeg/include/CFFmpeg.h` for why it is not linked). Every entry point into FFmpeg calls
/// ``load()`` first and throws its error when the libraries are missing; the calls
/// themselves go through ``ff``.
enum FFmpegLibrary {
    private static let loaded: Result<CFFmpegFunctions, FFmpegError> = {
        var error = [CChar](repeating: 0, count: 512)
        guard let table = CFFmpeg_load(&error, error.count) else {
            let cause = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegError(message: "FFmpeg, which camlib needs for movies and to scale pictures, cannot be loaded: \(cause)", call: FFmpegError.loading))
        }
        // Silent: camlib reports errors itself, one line per file, instead of FFmpeg's
        // stream of warnings on damaged input.
        table.pointee.av_log_set_level(-8)  // AV_LOG_QUIET
        return .success(table.pointee)
    }()

    /// Loads FFmpeg once for the process; throws, every time, if it cannot be loaded.
    static func load() throws { _ = try loaded.get() }

    private static let devices: Result<Void, FFmpegError> = {
        var error = [CChar](repeating: 0, count: 512)
        guard CFFmpeg_loadDevices(&error, error.count) != 0 else {
            let cause = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(FFmpegError(message: "libavdevice, which camlib needs to hear the system's microphone, cannot be loaded: \(cause)", call: FFmpegError.loading))
        }
        return .success(())
    }()

    /// Loads FFmpeg and libavdevice's inputs (ALSA, PulseAudio) once; throws if it cannot.
    static func loadDevices() throws {
        try load()
        try devices.get()
    }

    /// The functions, once ``load()`` has succeeded (a programming error before).
    static var functions: CFFmpegFunctions {
        guard case .success(let table) = loaded else { preconditionFailure("FFmpegLibrary.load() must succeed before FFmpeg is called") }
        return table
    }
}

/// FFmpeg's functions, called as `ff.av_frame_alloc()`.
var ff: CFFmpegFunctions { FFmpegLibrary.functions }
