internal import CFFmpeg

/// Encodes mono 32-bit float samples to AAC (FFmpeg's own `aac` encoder, LC profile), the
/// sound of camlib's movies and Live Photos as an iPhone records it. Samples come in any
/// number at a time; the encoder takes them in frames of 1024 and gives packets stamped
/// in samples (time base 1/`sampleRate`) from the first sample's time.
/// avcodec_alloc_context3 → avcodec_free_context, av_frame_alloc → av_frame_free,
/// av_packet_alloc → av_packet_free.
public final class AudioEncoder {
    public struct Packet: Sendable {
        public var data: [UInt8]
        /// In samples (time base 1/sampleRate).
        public var pts: Int64
        public var duration: Int64
    }

    public let sampleRate: Int
    public let bitRate: Int
    var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Samples waiting for a whole frame, and the time of the first of them.
    private var pending: [Float] = []
    private var pendingPTS: Int64?
    private var flushed = false

    public init(sampleRate: Int = 48_000, bitRate: Int = 96_000) throws {
        try FFmpegLibrary.load()
        (self.sampleRate, self.bitRate) = (sampleRate, bitRate)
        do {
            try open()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Samples per AAC frame.
    public var frameSize: Int { Int(context?.pointee.frame_size ?? 1024) }

    private func open() throws {
        guard let codec = ff.avcodec_find_encoder_by_name("aac") else {
            throw FFmpegError(message: "FFmpeg has no aac encoder", call: "avcodec_find_encoder_by_name")
        }
        context = ff.avcodec_alloc_context3(codec)
        guard let enc = context else { throw FFmpegError(message: "out of memory", call: "avcodec_alloc_context3") }
        enc.pointee.sample_rate = Int32(sampleRate)
        enc.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        ff.av_channel_layout_default(&enc.pointee.ch_layout, 1)
        enc.pointee.bit_rate = Int64(bitRate)
        enc.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        // MOV keeps the decoder's configuration in the sample description (esds).
        enc.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        let rc = ff.avcodec_open2(enc, codec, nil)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_open2 (aac)") }
        frame = ff.av_frame_alloc()
        packet = ff.av_packet_alloc()
        guard let frame, packet != nil else { throw FFmpegError(message: "out of memory", call: "av_frame_alloc") }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.nb_samples = enc.pointee.frame_size
        frame.pointee.sample_rate = enc.pointee.sample_rate
        let copied = ff.av_channel_layout_copy(&frame.pointee.ch_layout, &enc.pointee.ch_layout)
        guard copied >= 0 else { throw FFmpegError(code: copied, call: "av_channel_layout_copy") }
        let r = ff.av_frame_get_buffer(frame, 0)
        guard r >= 0 else { throw FFmpegError(code: r, call: "av_frame_get_buffer") }
    }

    /// Queues `samples` (-1…1) starting at sample `pts`; returns the packets ready. A gap
    /// before `pts` (samples the source lost) is filled with silence, so the sound keeps
    /// its place against the picture; samples before the end of those queued are dropped.
    public func encode(_ samples: [Float], pts: Int64) throws -> [Packet] {
        guard !flushed else { throw FFmpegError(message: "the encoder is finished", call: "AudioEncoder.encode") }
        var samples = samples[...]
        if let start = pendingPTS {
            let next = start + Int64(pending.count)
            if pts > next {
                pending += [Float](repeating: 0, count: Int(min(pts - next, Int64(sampleRate) * 10)))
            } else if pts < next {
                samples = samples.dropFirst(Int(min(next - pts, Int64(samples.count))))
            }
        } else {
            pendingPTS = pts
        }
        pending += samples
        var out: [Packet] = []
        let size = frameSize
        var used = 0
        while pending.count - used >= size {
            out += try send(pending[used..<(used + size)], pts: pendingPTS! + Int64(used))
            used += size
        }
        pending.removeFirst(used)
        pendingPTS! += Int64(used)
        return out
    }

    /// The last samples (padded with silence to a frame) and what the encoder still held.
    public func finish() throws -> [Packet] {
        guard !flushed, let enc = context else { return [] }
        var out: [Packet] = []
        if !pending.isEmpty, let pts = pendingPTS {
            let padded = pending + [Float](repeating: 0, count: frameSize - pending.count)
            out += try send(padded[...], pts: pts)
            pending = []
        }
        flushed = true
        _ = ff.avcodec_send_frame(enc, nil)
        return out + (try receive())
    }

    private func send(_ samples: ArraySlice<Float>, pts: Int64) throws -> [Packet] {
        guard let enc = context, let frame else { return [] }
        var rc = ff.av_frame_make_writable(frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "av_frame_make_writable") }
        frame.pointee.data.0!.withMemoryRebound(to: Float.self, capacity: samples.count) { plane in
            samples.withUnsafeBufferPointer { plane.update(from: $0.baseAddress!, count: samples.count) }
        }
        frame.pointee.pts = pts
        rc = ff.avcodec_send_frame(enc, frame)
        guard rc >= 0 else { throw FFmpegError(code: rc, call: "avcodec_send_frame (aac)") }
        return try receive()
    }

    private func receive() throws -> [Packet] {
        guard let enc = context, let packet else { return [] }
        return try receivePackets(from: enc, into: packet, call: "avcodec_receive_packet (aac)") { p in
            Packet(
                data: Array(UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size))),
                pts: p.pointee.pts, duration: p.pointee.duration)
        }
    }

    private func close() {
        // av_frame_free releases the frame's channel layout copy.
        ff.av_frame_free(&frame)
        ff.av_packet_free(&packet)
        // (avcodec_free_context releases the context's channel layout too.)
        ff.avcodec_free_context(&context)
    }
}
