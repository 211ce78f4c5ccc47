import Foundation
import GRDB

extension PhotoLibrary {
    /// The years in which assets were captured, newest first: what a timeline's scroll bar
    /// jumps to. One index probe per year between the first and the last, never a scan.
    public func captureYears() throws -> [Int] {
        try catalog.read { db in
            let first = try String.fetchOne(
                db, sql: "SELECT captured_at FROM asset_summary WHERE captured_julian IS NOT NULL ORDER BY captured_julian LIMIT 1")
            let last = try String.fetchOne(
                db, sql: "SELECT captured_at FROM asset_summary WHERE captured_julian IS NOT NULL ORDER BY captured_julian DESC LIMIT 1")
            guard let low = first.flatMap({ Int($0.prefix(4)) }), let high = last.flatMap({ Int($0.prefix(4)) }), low <= high else { return [] }
            let probe = try db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM asset_summary INDEXED BY asset_summary_by_captured
                                   WHERE captured_julian >= julianday(?) AND captured_julian < julianday(?))
                    """)
            // A day either side: capture times are UTC in the index, local in the text.
            return try (low...high).reversed().filter { year in
                try Bool.fetchOne(probe, arguments: [String(format: "%04d-12-31", year - 1), String(format: "%04d-01-02", year + 1)]) ?? false
            }
        }
    }
}
