import Dispatch
import Foundation
import Library
import Synchronization

/// The map's points, read from the catalog once and again only when the located assets
/// may have changed (``PhotoLibrary/mapIndexMark()``: an import, a trashing, a restore),
/// so a visible box's clusters cost a few hundred binary searches, not a read of every
/// located asset.
///
/// A small library's points are read again in the request that finds them stale. Once a
/// read has taken longer than ``backgroundAfter`` (2.7 s for 694,000 points), the next
/// one is made in the background and the points as they were are answered meanwhile: an
/// import into a large library does not stall the map for seconds.
final class MapPoints: Sendable {
    private struct Read {
        var mark: String
        var index: MapIndex
        var seconds: Double
    }

    private let library: PhotoLibrary
    private let backgroundAfter: Double
    private let cached = Mutex<Read?>(nil)
    /// One read of the catalog at a time: requests that find the points stale wait for it.
    private let reading = Mutex<Void>(())
    private let refreshing = Atomic<Bool>(false)

    init(library: PhotoLibrary, backgroundAfter: Double = 0.25) {
        (self.library, self.backgroundAfter) = (library, backgroundAfter)
    }

    /// The points (blocking: run on a ``Blocking`` thread): as the catalog has them now,
    /// or, while a large library's are read again in the background, as they were.
    func index() throws -> MapIndex {
        let mark = try library.mapIndexMark()
        if let current = cached.withLock({ $0 }) {
            if current.mark == mark { return current.index }
            if current.seconds > backgroundAfter {
                refresh(mark)
                return current.index
            }
        }
        return try read(mark)
    }

    /// Whether the points answered now may be older than the catalog (a read is under way).
    var isRefreshing: Bool { refreshing.load(ordering: .acquiring) }

    private func read(_ mark: String) throws -> MapIndex {
        try reading.withLock { _ in
            if let current = cached.withLock({ $0 }), current.mark == mark { return current.index }
            let start = ContinuousClock.now
            let index = try library.mapIndex()
            let took = start.duration(to: .now)
            let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
            cached.withLock { $0 = Read(mark: mark, index: index, seconds: seconds) }
            return index
        }
    }

    /// Reads the points again on a thread of their own, once at a time. A failed read
    /// leaves the old points; the next request tries again.
    private func refresh(_ mark: String) {
        guard refreshing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        DispatchQueue.global(qos: .utility).async {
            defer { self.refreshing.store(false, ordering: .releasing) }
            _ = try? self.read(mark)
        }
    }
}
