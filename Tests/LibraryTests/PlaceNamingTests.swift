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
            try Self.undoAssetPlaces(db)
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
        try Self.expectAssetPlacesFollowTheFiles(again.catalog, rows: 4)
        #expect(try again.catalog.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM job WHERE state <> 'done'") } == 0)
    }

    /// Undoes 0027 (each asset's places) by hand, as a library made before it had none.
    static func undoAssetPlaces(_ db: any CatalogConnection) throws {
        switch db.dialect {
        case .sqlite:
            for trigger in [
                "asset_place_metadata_insert", "asset_place_metadata_update", "asset_place_metadata_delete", "asset_place_resource_delete",
                "asset_place_resource_update",
            ] {
                try db.execute(CatalogSQL(sql: "DROP TRIGGER \(trigger)"))
            }
            try db.execute("DROP TABLE asset_place_refresh")
            try db.execute("DROP TABLE asset_place")
            try db.execute("DELETE FROM grdb_migrations WHERE identifier = '0027_index_asset_places'")
        case .postgres:
            try db.execute("DROP FUNCTION asset_place_touch_metadata() CASCADE")
            try db.execute("DROP FUNCTION asset_place_touch_resource() CASCADE")
            try db.execute("DROP FUNCTION asset_place_refresh(bigint)")
            try db.execute("DROP TABLE asset_place")
            try db.execute("DELETE FROM camlib_migrations WHERE identifier = '0027_index_asset_places'")
        }
    }

    /// `asset_place` holds each asset's places as its still and movie files have them,
    /// `rows` rows in all.
    static func expectAssetPlacesFollowTheFiles(_ catalog: Catalog, rows: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let truth: CatalogSQL = """
            SELECT DISTINCT r.asset_id, m.place_id FROM resource r JOIN metadata m ON m.resource_id = r.id
            WHERE m.place_id IS NOT NULL AND r.role IN ('photo', 'pairedVideo', 'video')
            """
        try catalog.read { db in
            let extra = try db.fetchOne(Int.self, "SELECT count(*) FROM (SELECT asset_id, place_id FROM asset_place EXCEPT \(truth)) AS x")
            let missing = try db.fetchOne(Int.self, "SELECT count(*) FROM (\(truth) EXCEPT SELECT asset_id, place_id FROM asset_place) AS x")
            #expect(extra == 0 && missing == 0, "asset_place: \(extra ?? -1) rows too many, \(missing ?? -1) missing", sourceLocation: sourceLocation)
            #expect(try db.fetchOne(Int.self, "SELECT count(*) FROM asset_place") == rows, sourceLocation: sourceLocation)
        }
    }

    /// Each asset's places (0027) follow its files: named, renamed, unnamed, moved to
    /// another asset, removed with the asset.
    @Test(.enabled(if: Media.shouldRun, Media.skipMessage), arguments: CatalogBackend.allCases)
    func eachAssetsPlacesFollowItsFiles(on backend: CatalogBackend) throws {
        let dir = try ScratchDirectory()
        let library = try PhotoLibrary.create(at: dir.url.appendingPathComponent("lib"), catalogURL: try backend.newCatalogURL())
        _ = try Importer(library: library).run(paths: [Media.path("apple-live-photo"), Media.path("apple-misc/IMG_4120.JPG")])
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 4)
        let live = try #require(try library.describe(try library.assetIDs(matching: AssetQuery())).first { $0.kind == .live && $0.place != nil })
        let (still, movie) = try library.catalog.read { db in
            (
                try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE asset_id = \(live.id) AND role = 'photo'") ?? 0,
                try db.fetchOne(Int64.self, "SELECT id FROM resource WHERE asset_id = \(live.id) AND role = 'pairedVideo'") ?? 0
            )
        }
        // Its still named after another place: the asset has both (its movie keeps the first).
        try library.catalog.write { db in
            let elsewhere = try PlaceRecord.id(of: PlaceName(city: "Lisbon", region: "Lisbon", country: "Portugal", countryCode: "PT"), db)
            try PlaceRecord.setPlace(elsewhere, ofFile: still, db)
        }
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 5)
        // Neither file named.
        try library.catalog.write { db in try db.execute("UPDATE metadata SET place_id = NULL WHERE resource_id IN (\(still), \(movie))") }
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 3)
        // Named again, as a place job names them.
        try library.catalog.write { db in
            for file in try PlaceRecord.unnamedFiles(of: live.id, db) {
                let name = try #require(PlaceIndex.bundled.name(latitude: file.latitude, longitude: file.longitude))
                try PlaceRecord.setPlace(try PlaceRecord.id(of: name, db), ofFile: file.resource, db)
            }
        }
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 4)
        // In the trash it keeps them; emptied, they go with it.
        _ = try library.trash([live.id])
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 4)
        _ = try library.emptyTrash()
        try Self.expectAssetPlacesFollowTheFiles(library.catalog, rows: 3)
    }
}
