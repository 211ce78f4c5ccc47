import Foundation
import Testing
import TestSupport

@testable import Library

/// Places named at import, found by `--place` and `--country`, and named by jobs in a
/// library imported before camlib named places (migration 0025).
struct PlaceNamingTests {
    struct Expected: Decodable {
        var file: String
        var city: String
        var region: String
        var countryCode: String
    }

    /// The hand-made list of the corpus's places (Tests/Fixtures/corpus-places.json).
    static func expected() throws -> [Expected] {
        struct List: Decodable { var places: [Expected] }
        let url = Media.packageRoot.appendingPathComponent("Tests/Fixtures/corpus-places.json")
        return try JSONDecoder().decode(List.self, from: Data(contentsOf: url)).places
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func everyGeotaggedCorpusFileIsNamedAsTheHandMadeListSays(on backend: CatalogBackend) throws {
        let library = try CorpusLibrary.shared(on: backend).library
        let expected = try Self.expected()
        for e in expected {
            let asset = try #require(try library.describe([try library.findAsset(Media.path(e.file))]).first, "\(e.file)")
            let place = try #require(asset.place, "\(e.file) has no place")
            #expect(place.city == e.city && place.region == e.region && place.countryCode == e.countryCode, "\(e.file): \(place)")
        }
        // Every asset with a location is on the list, and only those have a place.
        let all = try library.describe(try library.assetIDs(matching: AssetQuery()))
        let located = Set(all.filter { $0.location != nil }.compactMap { $0.primaryOriginal?.originalName })
        #expect(located == Set(expected.map { URL(fileURLWithPath: $0.file).lastPathComponent }))
        #expect(all.filter { $0.location == nil }.allSatisfy { $0.place == nil })
    }

    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func queriesFindAssetsByPlaceAndCountry(on backend: CatalogBackend) throws {
        let library = try CorpusLibrary.shared(on: backend).library
        let expected = try Self.expected()
        func names(place: String? = nil, country: String? = nil) throws -> Set<String> {
            var query = AssetQuery()
            (query.place, query.country) = (place, country)
            return Set(try library.describe(try library.assetIDs(matching: query)).compactMap { $0.primaryOriginal?.originalName })
        }
        func files(_ keep: (Expected) -> Bool) -> Set<String> {
            Set(expected.filter(keep).map { URL(fileURLWithPath: $0.file).lastPathComponent })
        }
        // A region (Alabama) and a city (Huntsville), in any case.
        #expect(try names(place: "alabama") == files { $0.region == "Alabama" })
        #expect(try names(place: "Huntsville") == ["IMG_4394.HEIC"])
        #expect(try names(country: "us") == files { $0.countryCode == "US" })
        #expect(try names(country: "Japan") == files { $0.countryCode == "JP" })
        // A city of a country, and one of another: both must hold.
        #expect(try names(place: "Berlin", country: "DE") == ["iphone_15_pro.heic", "quicktime-hvc1.mov"])
        #expect(try names(place: "Berlin", country: "US").isEmpty)
        #expect(try names(place: "Atlantis").isEmpty)
        // Accents optional.
        #expect(try names(place: "hyogo") == ["iphone_7.heic"])
    }

    /// A library whose files were imported before places (0025 undone by hand) gets one
    /// `place` job per located asset; a worker names them as an import would have.
    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func migration0025QueuesPlaceJobsThatNameTheFilesAlreadyThere(on backend: CatalogBackend) throws {
        let dir = try ScratchDirectory()
        let root = dir.url.appendingPathComponent("lib")
        let library = try PhotoLibrary.create(at: root, catalogURL: try backend.newCatalogURL())
        _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo"), Media.path("apple-misc/IMG_4120.JPG")])
        let named = try library.describe(try library.assetIDs(matching: AssetQuery()))
        #expect(named.filter { $0.place != nil }.count == 4)
        try library.catalog.write { db in
            try db.execute("DELETE FROM job")
            try db.execute("DROP INDEX metadata_by_place_id")
            try db.execute("ALTER TABLE metadata DROP COLUMN place_id")
            try db.execute("DROP TABLE place")
            switch db.dialect {
            case .sqlite: try db.execute("DELETE FROM grdb_migrations WHERE identifier = '0025_name_places'")
            case .postgres: try db.execute("DELETE FROM camlib_migrations WHERE identifier = '0025_name_places'")
            }
        }
        try library.catalog.close()
        let again = try PhotoLibrary(root: root, mode: .write)
        let queued = try again.catalog.read { db in
            try db.fetchAll(Int64.self, "SELECT asset_id FROM job WHERE kind = 'place' AND state = 'available' ORDER BY asset_id")
        }
        #expect(queued == named.filter { $0.location != nil }.map(\.id).sorted())
        #expect(try again.describe(queued).allSatisfy { $0.place == nil })
        try JobWorker(library: again, options: .init(kinds: [.place], untilIdle: true)).run()
        let renamed = try again.describe(named.map(\.id))
        #expect(renamed.map(\.place) == named.map(\.place))
        #expect(try again.catalog.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM job WHERE state <> 'done'") } == 0)
    }
}
