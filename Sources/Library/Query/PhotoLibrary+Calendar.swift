extension PhotoLibrary {
    /// The years in which assets were captured, newest first: what a timeline's scroll bar
    /// jumps to. One index probe per year between the first and the last, never a scan.
    public func captureYears() throws -> [Int] {
        try catalog.read { db in try AssetListing.captureYears(db) }
    }
}
