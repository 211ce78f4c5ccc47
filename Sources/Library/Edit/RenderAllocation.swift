internal import CMalloc

/// glibc's allocator set up for rendering, where a movie's every frame allocates the same
/// few working planes of several megabytes and frees them again. By default glibc maps
/// each such block from the kernel and unmaps it when freed (its threshold for that starts
/// at 128 KB and moves only after a free), so every frame's planes came back as fresh
/// pages to fault in and clear. Blocks of up to 64 MB are kept in the heap, and the heap
/// trimmed only past 256 MB free (a fifth of the page faults, and less CPU; see
/// docs/performance.md). Larger blocks (a still's whole picture) are still mapped and given
/// back when freed, so a 200-megapixel edit's peak does not grow.
enum RenderAllocation {
    private static let tuned: Void = {
        // mallopt returns 0 for a setting it refuses; the default then stays, which is slower, not wrong.
        _ = mallopt(M_MMAP_THRESHOLD, 64 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
    }()

    /// Sets the allocator up, once per process.
    static func prepare() { tuned }
}
