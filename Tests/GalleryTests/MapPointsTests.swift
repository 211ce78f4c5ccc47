import Foundation
import Library
import Testing
import TestSupport

@testable import Gallery

/// The map's points follow the catalog: read again in the request for a small library,
/// in the background for a large one (the old points answered meanwhile).
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct MapPointsTests {
    static func library(_ dir: ScratchDirectory) throws -> (PhotoLibrary, located: [Int64]) {
        let library = try PhotoLibrary.create(at: dir.url.appendingPathComponent("lib"))
        _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo")])
        let located = try library.describe(try library.assetIDs(matching: AssetQuery())).filter { $0.location != nil }.map(\.id)
        return (library, located)
    }

    @Test func aSmallLibrarysPointsAreReadAgainInTheRequest() throws {
        let dir = try ScratchDirectory()
        let (library, located) = try Self.library(dir)
        #expect(located.count >= 2)
        let points = MapPoints(library: library)
        #expect(try points.index().count == located.count)
        _ = try library.trash([located[0]])
        #expect(try points.index().count == located.count - 1)
        #expect(!points.isRefreshing)
    }

    @Test func aSlowReadIsMadeAgainInTheBackgroundWhileTheOldPointsAreAnswered() throws {
        let dir = try ScratchDirectory()
        let (library, located) = try Self.library(dir)
        // Every read counts as slow.
        let points = MapPoints(library: library, backgroundAfter: -1)
        #expect(try points.index().count == located.count)
        _ = try library.trash([located[0]])
        // At once, as they were; then, once read again, as they are.
        #expect(try points.index().count == located.count)
        let deadline = Date().addingTimeInterval(30)
        while try points.index().count != located.count - 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try points.index().count == located.count - 1)
        _ = try library.restore([located[0]])
        while try points.index().count != located.count, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try points.index().count == located.count)
    }
}
