/// The C libraries' process-wide setup, which otherwise happens on first use.
public enum CodecLibraries {
    /// Loads libheif's decoder plugins and FFmpeg now (about 40 ms together here) rather
    /// than in the middle of the first file: for a process that starts before it has
    /// work, such as an import's analysis worker started while the import opens its
    /// catalog. A library that cannot be loaded is not an error here; the first file that
    /// needs it says so.
    public static func preload() {
        _ = HEIFLibrary.preferredHEVCDecoder  // heif_init first
        try? FFmpegLibrary.load()
    }
}
