import Foundation
import Library
import Synchronization

/// The map's points, read from the catalog once and again only when the located assets
/// may have changed (``PhotoLibrary/mapIndexMark()``: an import, a trashing, a restore),
/// so a visible box's clusters cost a few hundred binary searches, not a read of every
/// located asset.
final class MapPoints: Sendable {
    private let library: PhotoLibrary
    private let cached = Mutex<(mark: String, index: MapIndex)?>(nil)
    /// One read of the catalog at a time: requests that find the points stale wait for it.
    private let reading = Mutex<Void>(())

    init(library: PhotoLibrary) {
        self.library = library
    }

    /// The points as the catalog has them now (blocking: run on a ``Blocking`` thread).
    func index() throws -> MapIndex {
        let mark = try library.mapIndexMark()
        if let current = cached.withLock({ $0 }), current.mark == mark { return current.index }
        return try reading.withLock { _ in
            if let current = cached.withLock({ $0 }), current.mark == mark { return current.index }
            let index = try library.mapIndex()
            cached.withLock { $0 = (mark, index) }
            return index
        }
    }
}
