internal import CFFmpeg
import Foundation

/// The system's sound input through libavdevice: ALSA's `default` device (on a desktop,
/// PulseAudio or PipeWire behind it, through their ALSA plugins), as mono 48 kHz samples.
/// libavdevice rather than libasound directly: camlib already loads FFmpeg for movies,
/// and the same code then also opens `pulse` or another driver by name.
/// avformat_open_input → avformat_close_input; av_packet_alloc → av_packet_free.
public final class SoundInput {
    public let sampleRate: Int
    public let device: String
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var channels = 1
    private var bytesPerSample = 2

    /// Opens `device` of `driver` ("alsa", "pulse"); throws when there is none (no sound
    /// card, no permission), saying which.
    public init(driver: String = "alsa", device: String = "default", sampleRate: Int = 48_000) throws {
        try FFmpegLibrary.loadDevices()
        (self.device, self.sampleRate) = ("\(driver) \(device)", sampleRate)
        guard let input = ff.av_find_input_format(driver) else {
            throw FFmpegError(message: "FFmpeg has no \(driver) input", call: "av_find_input_format")
        }
        var options: OpaquePointer?
        defer { ff.av_dict_free(&options) }
        _ = ff.av_dict_set(&options, "sample_rate", String(sampleRate), 0)
        _ = ff.av_dict_set(&options, "channels", "1", 0)
        var context: UnsafeMutablePointer<AVFormatContext>?
        let rc = ff.avformat_open_input(&context, device, input, &options)
        guard rc >= 0, let context else { throw FFmpegError(code: rc, call: "opening the \(driver) input \(device)") }
        format = context
        packet = ff.av_packet_alloc()
        guard packet != nil, context.pointee.nb_streams > 0, let par = context.pointee.streams[0]?.pointee.codecpar else {
            close()
            throw FFmpegError(message: "the \(driver) input \(device) gives no sound stream", call: "SoundInput")
        }
        channels = max(1, Int(par.pointee.ch_layout.nb_channels))
        guard par.pointee.codec_id == AV_CODEC_ID_PCM_S16LE, Int(par.pointee.sample_rate) == sampleRate else {
            close()
            throw FFmpegError(message: "the \(driver) input \(device) gives \(Int(par.pointee.sample_rate)) Hz sound not as 16-bit PCM", call: "SoundInput")
        }
    }

    deinit { close() }

    /// The next samples (mono, -1…1; channels averaged) and the monotonic-clock second at
    /// which the first of them was heard (the read's moment minus their length). Blocks.
    public func read() throws -> (samples: [Float], heardAt: Double)? {
        guard let format, let packet else { return nil }
        let rc = ff.av_read_frame(format, packet)
        if rc == CFFmpeg_AVERROR_EOF() { return nil }
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "reading \(device)") }
        defer { ff.av_packet_unref(packet) }
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        let now = Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        let frames = Int(packet.pointee.size) / (bytesPerSample * channels)
        var samples = [Float](repeating: 0, count: frames)
        UnsafeRawPointer(packet.pointee.data).withMemoryRebound(to: Int16.self, capacity: frames * channels) { pcm in
            for i in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels { sum += Float(Int16(littleEndian: pcm[i * channels + c])) }
                samples[i] = sum / Float(channels) / 32768
            }
        }
        return (samples, now - Double(frames) / Double(sampleRate))
    }

    private func close() {
        ff.av_packet_free(&packet)
        if format != nil { ff.avformat_close_input(&format) }
    }
}
