internal import CFFmpeg

/// The packets an FFmpeg encoder has ready, each made into `P` by `make` (which copies
/// what it keeps: the packet is unreferenced after it), until it asks for more input or
/// has given everything.
func receivePackets<P>(
    from encoder: UnsafeMutablePointer<AVCodecContext>, into packet: UnsafeMutablePointer<AVPacket>, call: String,
    _ make: (UnsafeMutablePointer<AVPacket>) -> P
) throws -> [P] {
    var out: [P] = []
    while true {
        let r = ff.avcodec_receive_packet(encoder, packet)
        if r == CFFmpeg_AVERROR_EAGAIN() || r == CFFmpeg_AVERROR_EOF() { return out }
        guard r >= 0 else { throw FFmpegError(code: r, call: call) }
        out.append(make(packet))
        ff.av_packet_unref(packet)
    }
}
