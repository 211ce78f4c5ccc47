internal import CMalloc

/// glibc's allocator set up for work that allocates the same few blocks of several
/// megabytes over and over and frees them again: a movie edit's working planes, frame
/// after frame, and a ZIP download's chunks. By default glibc maps each such block from
/// the kernel and unmaps it when freed (its threshold for that starts at 128 KB and moves
/// only after a free), so every block came back as fresh pages to fault in and clear.
/// Blocks of up to 64 MB are kept in the heap, and the heap trimmed only past 256 MB free
/// (for renders a fifth of the page faults and less CPU, for downloads a fifth more speed;
/// see docs/performance.md). Larger blocks (a still's whole picture) are still mapped and
/// given back when freed, so a 200-megapixel edit's peak does not grow.
public enum LargeBlockAllocation {
    private static let tuned: Void = {
        // mallopt returns 0 for a setting it refuses; the default then stays, which is slower, not wrong.
        _ = mallopt(M_MMAP_THRESHOLD, 64 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
    }()

    /// Sets the allocator up, once per process.
    public static func prepare() { tuned }
}
