import Codecs
import Filters
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Library
import Testing
import TestSupport

@testable import Gallery

@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct GalleryAPITests {
    @Test(arguments: CatalogBackend.allCases) func pagesListEveryAssetOnceNewestFirst(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        var expected = AssetQuery()
        expected.descending = true
        let all = try corpus.library.assetIDs(matching: expected)
        #expect(all.count > 20)
        let seen = try await corpus.test { client in
            var ids: [Int64] = []
            var after: String?
            repeat {
                let uri = "/api/assets?limit=7" + (after.map { "&after=\($0)" } ?? "")
                let page = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    return try response.object()
                }
                let assets = page["assets"] as? [[String: Any]] ?? []
                #expect(assets.count <= 7)
                ids += assets.compactMap { ($0["id"] as? NSNumber)?.int64Value }
                after = page["next"] as? String
            } while after != nil
            return ids
        }
        #expect(seen == all)
    }

    @Test(arguments: CatalogBackend.allCases) func pagesBeforeAnAssetGiveTheNewerOnesNewestFirst(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        var expected = AssetQuery()
        expected.descending = true
        expected.since = "1990-01-01"  // the dated ones: undated assets end the timeline
        let dated = try corpus.library.assetIDs(matching: expected)
        let middle = dated.count / 2
        let newer = try await corpus.test { client in
            let start = try await client.execute(uri: "/api/assets?limit=\(middle + 1)", method: .get) { try $0.object() }
            let anchor = try #require((start["assets"] as? [[String: Any]])?.last?["cursor"] as? String)
            var ids: [Int64] = []
            var before: String? = anchor
            while let cursor = before {
                let page = try await client.execute(uri: "/api/assets?limit=3&before=\(cursor)", method: .get) { response in
                    #expect(response.status == .ok)
                    return try response.object()
                }
                #expect(page["next"] is NSNull)
                // Each page is newest first and comes before the ones already read.
                ids = ((page["assets"] as? [[String: Any]]) ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value } + ids
                before = page["previous"] as? String
            }
            return ids
        }
        #expect(newer == Array(dated.prefix(middle)))
    }

    @Test(arguments: CatalogBackend.allCases) func assetsCarryTheJSONContractAndTheirMedia(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        let contract = Set((try JSONSerialization.jsonObject(with: JSONEncoder().encode(live)) as? [String: Any] ?? [:]).keys)
        try await corpus.test { client in
            try await client.execute(uri: "/api/assets/\(live.id)", method: .get) { response in
                let object = try response.object()
                #expect(Set(object.keys) == contract.union(["media"]))
                #expect(object["kind"] as? String == "live")
                let media = object["media"] as? [String: Any] ?? [:]
                for key in ["thumbnail", "preview", "video", "original"] { #expect(media[key] is String, "media.\(key)") }
            }
            try await client.execute(uri: "/api/assets/999999999", method: .get) { #expect($0.status == .notFound) }
        }
    }

    /// What the editor builds its controls from: every filter with its parameters, the
    /// adjustments marked.
    @Test func theFiltersComeWithTheirParametersAndTheAdjustmentsMarked() async throws {
        let corpus = try GalleryLibrary.shared(on: .sqlite)
        try await corpus.test { client in
            try await client.execute(uri: "/api/filters", method: .get) { response in
                let filters = try response.json() as? [[String: Any]] ?? []
                #expect(filters.compactMap { $0["name"] as? String } == FilterCatalog.names)
                let adjustments = Set(filters.filter { $0["adjustment"] as? Bool == true }.compactMap { $0["name"] as? String })
                #expect(adjustments == FilterCatalog.adjustments.union(["auto"]))
                let exposure = (filters.first { $0["name"] as? String == "exposure" }?["parameters"] as? [[String: Any]])?.first
                #expect(exposure?["name"] as? String == "ev" && exposure?["defaultValue"] as? Double == 0)
                #expect(exposure?["minimum"] as? Double == -4 && exposure?["maximum"] as? Double == 4)
            }
            // The depth step's preview: drawn for a Portrait photo, refused with the reason for one without depth.
            let portrait = try corpus.asset("apple-portrait-heic/pug.heic"), plain = try corpus.asset("orientation/Landscape_2.jpg")
            try await client.execute(uri: "/api/assets/\(portrait.id)/edit-preview?filters=depth:aperture=1.4", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg", "\(response.text)")
            }
            try await client.execute(uri: "/api/assets/\(plain.id)/edit-preview?filters=depth", method: .get) { response in
                #expect(response.status == .unprocessableContent, "\(response.status)")
                #expect(response.text.contains("(Landscape_2.jpg)") && response.text.contains("depth or disparity map"), "\(response.text)")
            }
        }
    }

    /// The editor's controls come from the filters' groups; it starts from the current
    /// version's steps (camlib's own; Apple's turned into camlib's); its Auto chooses what
    /// an edit's `auto` stores.
    @Test func theEditorStartsFromTheCurrentStepsAndAutoChoosesWhatAnEditStores() async throws {
        let own = try GalleryLibrary(folders: ["orientation", "apple-live-photo"])
        let plain = try own.asset("orientation/Landscape_2.jpg"), edited = try own.asset("orientation/Landscape_3.jpg")
        let apple = try own.asset("apple-live-photo/IMG_3582.HEIC")
        let steps = try ["exposure:ev=1", "crop:aspect=1:1", "mono"].map { try FilterStep(parsing: $0) }
        _ = try own.library.edit(asset: edited.id, steps: steps, extending: false)
        let automatic = try own.asset("orientation/Landscape_4.jpg")
        let stored = try own.library.edit(asset: automatic.id, steps: [try FilterStep(parsing: "auto")], extending: false).recipe.steps.map(\.description)
        let appleSteps: [String] = try {
            let current = try #require(apple.adjustments.last { $0.current })
            return try AppleRecipe(json: current.data).steps.map(\.description)
        }()
        try await own.test { client in
            try await client.execute(uri: "/api/filters", method: .get) { response in
                let groups = Dictionary(uniqueKeysWithValues: (try response.json() as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
                for (name, group) in [
                    ("exposure", "light"), ("shadows", "light"), ("warmth", "colour"), ("vibrance", "colour"), ("crop", "geometry"),
                    ("straighten", "geometry"), ("depth", "depth"), ("auto", "auto"), ("comic", "look"), ("noir", "look"),
                ] {
                    #expect(groups[name]?["group"] as? String == group, "\(name)")
                }
                let direction = (groups["flip"]?["parameters"] as? [[String: Any]])?.first
                #expect(direction?["choices"] as? [String] == ["horizontal", "vertical"])
            }
            func start(_ id: Int64) async throws -> [String: Any] {
                try await client.execute(uri: "/api/assets/\(id)/editor", method: .get) { response in
                    #expect(response.status == .ok, "\(response.text)")
                    return try response.object()
                }
            }
            let original = try await start(plain.id)
            #expect(original["from"] as? String == "original" && (original["steps"] as? [String])?.isEmpty == true)
            let camlib = try await start(edited.id)
            #expect(camlib["from"] as? String == "camlib")
            #expect(camlib["steps"] as? [String] == steps.map(\.description))
            let fromApple = try await start(apple.id)
            #expect(fromApple["from"] as? String == "apple" && fromApple["note"] is NSNull)
            #expect(fromApple["steps"] as? [String] == appleSteps && !appleSteps.isEmpty)
            try await client.execute(uri: "/api/assets/999999999/editor", method: .get) { #expect($0.status == .notFound) }

            try await client.execute(uri: "/api/assets/\(automatic.id)/auto", method: .get) { response in
                #expect(response.status == .ok, "\(response.text)")
                let chosen = try response.object()["steps"] as? [String]
                #expect(chosen == stored)
            }
            try await client.execute(uri: "/api/assets/\(automatic.id)/auto?filters=rotate:degrees=45", method: .get) { response in
                #expect(response.status == .badRequest && response.text.contains("multiple of 90"), "\(response.text)")
            }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func filtersAreCheckedAndNamedAsInCamlibQuery(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        try await corpus.test { client in
            try await client.execute(uri: "/api/assets?kind=live", method: .get) { response in
                let kinds = (try response.object()["assets"] as? [[String: Any]] ?? []).map { $0["kind"] as? String }
                #expect(!kinds.isEmpty && kinds.allSatisfy { $0 == "live" })
            }
            for (uri, words) in [
                ("/api/assets?kind=slide", "kind=slide"), ("/api/assets?limit=0", "limit"), ("/api/assets?since=yesterday", "since=yesterday"),
                ("/api/assets?after=garbage", "after=garbage"), ("/api/assets?has=smell", "has=smell"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(response.text.contains(words), "\(uri): \(response.text)")
                }
            }
        }
    }

    /// The page writes its search as a form does (`URLSearchParams`): `+` for a space,
    /// `%2B` for a plus; suggestions come from the names the library holds.
    @Test(arguments: CatalogBackend.allCases) func theSearchBoxsTextArrivesAsTypedAndSuggestionsAreNames(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        try await corpus.test { client in
            func names(_ uri: String) async throws -> Set<String> {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok, "\(uri): \(response.text)")
                    let assets = try response.object()["assets"] as? [[String: Any]] ?? []
                    return Set(assets.compactMap { a in
                        (a["resources"] as? [[String: Any]])?.compactMap { $0["originalName"] as? String }.first
                    })
                }
            }
            let wanted: Set<String> = ["IMG_3582.HEIC", "IMG_4076.HEIC", "IMG_4394.HEIC"]
            #expect(try await names("/api/assets?q=2025+apple") == wanted)
            #expect(try await names("/api/assets?q=2025%20apple") == wanted)
            // A plus typed in the box is a plus: no file name holds "2025+apple".
            #expect(try await names("/api/assets?q=2025%2Bapple").isEmpty)
            #expect(try await names("/api/assets?place=Owens+Cross+Roads") == ["IMG_3582.HEIC"])
            try await client.execute(uri: "/api/suggest?q=hunts", method: .get) { response in
                let found = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [[String: String]]
                #expect(found == [["kind": "place", "text": "Huntsville"]], "\(response.text)")
            }
        }
    }

    /// The scrubber's months and "On this day", with the pictures a card shows.
    @Test(arguments: CatalogBackend.allCases) func theCalendarGivesMonthsAndEarlierYearsOfADay(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let library = corpus.library
        let months = try library.captureMonths()
        let dated = try library.describe(try library.assetIDs(matching: AssetQuery())).compactMap { a in a.capturedAt.map { (a.id, String($0.prefix(10))) } }
        let day = try #require(dated.first).1
        try await corpus.test { client in
            try await client.execute(uri: "/api/months", method: .get) { response in
                let answer = try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String]
                #expect(answer == months)
            }
            let today = String(Int(day.prefix(4))! + 1) + day.dropFirst(4)
            try await client.execute(uri: "/api/memories?today=\(today)", method: .get) { response in
                #expect(response.status == .ok, "\(response.text)")
                let memories = try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [[String: Any]])
                let first = try #require(memories.first)
                #expect(first["day"] as? String == day && first["year"] as? Int == Int(day.prefix(4)))
                let count = dated.filter { $0.1 == day }.count
                #expect(first["count"] as? Int == count)
                let assets = first["assets"] as? [[String: Any]] ?? []
                #expect(assets.count == min(count, GalleryAPI.memoryPictures))
                #expect(assets.allSatisfy { ($0["media"] as? [String: Any])?["thumbnail"] is String })
            }
            for bad in ["2025-02-29", "tomorrow", ""] {
                try await client.execute(uri: "/api/memories?today=\(bad)", method: .get) { response in
                    #expect(response.status == .badRequest, "\(bad)")
                    #expect(response.text.contains("the page's local date"))
                }
            }
        }
    }

    /// The map: every located asset outside the trash in the world's clusters, each with
    /// its picture; a cluster's square lists its assets in the timeline; the page may load
    /// the tiles' server's images and no other.
    @Test(arguments: CatalogBackend.allCases) func theMapsClustersHoldEveryLocatedAssetAndTheirSquaresListThem(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let located = try corpus.library.describe(try corpus.library.assetIDs(matching: AssetQuery())).filter { $0.location != nil }
        #expect(located.count >= 6)
        try await corpus.test { client in
            let world = try await client.execute(uri: "/api/map?south=-90&west=-180&north=90&east=180&zoom=1", method: .get) { try $0.object() }
            let clusters = world["clusters"] as? [[String: Any]] ?? []
            #expect(world["total"] as? Int == located.count)
            #expect(clusters.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == located.count)
            #expect(clusters.allSatisfy { ($0["thumbnail"] as? String)?.hasPrefix("/media/") == true })
            // Alabama at zoom 5: Huntsville and Owens Cross Roads, one cluster; its square
            // lists both.
            let alabama = try await client.execute(uri: "/api/map?south=30&west=-90&north=37&east=-84&zoom=5", method: .get) { try $0.object() }
            let pair = try #require((alabama["clusters"] as? [[String: Any]] ?? []).first { $0["count"] as? Int == 2 }, "\(alabama)")
            let box = ["south", "west", "north", "east"].map { String(pair[$0] as? Double ?? 0) }.joined(separator: ",")
            try await client.execute(uri: "/api/assets?box=\(box)", method: .get) { response in
                let names = (try response.object()["assets"] as? [[String: Any]] ?? []).compactMap { a in
                    (a["resources"] as? [[String: Any]])?.compactMap { $0["originalName"] as? String }.first
                }
                #expect(Set(names) == ["IMG_3582.HEIC", "IMG_4394.HEIC"], "\(box)")
            }
            for (uri, words) in [
                ("/api/map?south=10&west=0&north=20", "east"), ("/api/map?south=50&west=0&north=20&east=5&zoom=3", "south"),
                ("/api/map?south=0&west=0&north=1&east=1&zoom=99", "zoom"), ("/api/assets?box=1,2,3", "box=1,2,3"),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .badRequest, "\(uri)")
                    #expect(response.text.contains(words), "\(uri): \(response.text)")
                }
            }
            try await client.execute(uri: "/api/map/settings", method: .get) { response in
                let settings = try response.object()
                #expect(settings["tiles"] as? String == MapSettings.openStreetMap)
                #expect(settings["leaflet"] as? Bool == FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.min.js"))
            }
            try await client.execute(uri: "/", method: .get) { response in
                let policy = response.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("img-src 'self' blob: data: https://tile.openstreetmap.org;"), "\(policy)")
            }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func filesComeWithEntityTagsAndByteRanges(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        // What the gallery plays: Apple's rendered edit (IMG_3582_edited.mov) is current.
        let movie = try #require(live.resources.first { $0.role == .renderedVideo } ?? live.resources.first { $0.role == .pairedVideo })
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: movie.path)))
        let media = try #require(try corpus.library.media(of: [live.id])[live.id]?.movie)
        let uri = "/media/\(live.id)/\(media)/original"
        try await corpus.test { client in
            try await client.execute(uri: uri, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == "\"\(movie.sha256)\"")
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(response.headers[.cacheControl]?.contains("immutable") == true)
                // As Data: a failing comparison of two arrays of megabytes is diffed element by element.
                #expect(Data(Array(buffer: response.body)) == Data(bytes))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(response.headers[.contentRange] == "bytes 100-199/\(bytes.count)")
                #expect(Array(buffer: response.body) == Array(bytes[100...199]))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=-10"]) { response in
                #expect(response.status == .partialContent)
                #expect(Array(buffer: response.body) == Array(bytes.suffix(10)))
            }
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=\(bytes.count)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(bytes.count)")
            }
            try await client.execute(uri: uri, method: .get, headers: [.ifNoneMatch: "\"\(movie.sha256)\""]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
            // A Range of another version of the file (If-Range does not match): the whole file.
            try await client.execute(uri: uri, method: .get, headers: [.range: "bytes=0-9", .ifRange: "\"other\""]) { response in
                #expect(response.status == .ok)
                #expect(response.body.readableBytes == bytes.count)
            }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func noRequestReachesAFileByPath(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        let other = try corpus.asset("orientation/Landscape_1.jpg")
        let otherStill = try #require(try corpus.library.media(of: [other.id])[other.id]?.still)
        let refused = [
            "/media/\(live.id)/../../catalog.sqlite", "/media/%2e%2e/%2e%2e/etc/passwd", "/media/\(live.id)/%2e%2e%2fcatalog.sqlite/original",
            "/media/\(live.id)/\(otherStill)/original",  // another asset's file
            "/media//etc/passwd/original", "/static/..%2f..%2fPackage.swift", "/static/../Package.swift", "/media/", "/media/\(live.id)/",
            "/originals/", "/derived/", "/catalog.sqlite", "/media/\(live.id)/1/aux/..%2f..%2fcatalog.sqlite",
            "/media/-1/-1/original", "/media/\(live.id)/\(otherStill)/thumbnail",
        ]
        try await corpus.test { client in
            for uri in refused {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound || response.status == .badRequest, "\(uri) answered \(response.status)")
                    #expect(!response.text.contains("SQLite format"), "\(uri)")
                }
            }
        }
    }

    @Test func writingNeedsThePagesHeaderAndItsOrigin() async throws {
        let corpus = try GalleryLibrary.shared()
        let still = try corpus.asset("orientation/Landscape_2.jpg")
        let header = HTTPField.Name("X-Camlib-Request")!
        try await corpus.test { client in
            try await client.execute(uri: "/api/assets/\(still.id)/revert", method: .post) { response in
                #expect(response.status == .forbidden)
                #expect(response.text.contains("X-Camlib-Request"))
            }
            try await client.execute(
                uri: "/api/assets/\(still.id)/revert", method: .post, headers: [header: "1", .origin: "http://evil.example"]
            ) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/api/assets/\(still.id)/revert", method: .post, headers: [header: "1", .origin: "http://localhost"]) {
                response in
                #expect(response.status == .ok)
                let reverted = try response.object()["reverted"] as? Bool
                #expect(reverted == false)
            }
        }
    }

    /// An edited photo's depth and mattes are still shown: the render carries them, and
    /// their URLs name the still the page shows.
    @Test func anEditedPhotosAuxiliaryImagesAreStillServed() async throws {
        let own = try GalleryLibrary(folders: ["apple-portrait-heic"])
        let asset = try own.asset("apple-portrait-heic/pug.heic")
        _ = try own.library.edit(asset: asset.id, steps: [try FilterStep(parsing: "mono")], extending: false)
        try await own.test { client in
            let object = try await client.execute(uri: "/api/assets/\(asset.id)", method: .get) { try $0.object() }
            let aux = try #require((object["media"] as? [String: Any])?["aux"] as? [String: String])
            #expect(aux["disparity"] != nil, "\(aux)")  // iPhone depth is stored as disparity
            for (type, url) in aux {
                try await client.execute(uri: url, method: .get) { response in
                    #expect(response.status == .ok, "\(type): \(url)")
                    #expect(response.headers[.contentType] == "image/png")
                }
            }
        }
    }

    /// Every method but GET and HEAD is a write; other sites' pages may not use the API or
    /// the files; every answer, errors too, says nosniff; names are bounded.
    @Test func writesAreEveryMethodButGetAndOtherSitesAreRefused() async throws {
        let corpus = try GalleryLibrary.shared()
        let still = try corpus.asset("orientation/Landscape_2.jpg")
        let header = HTTPField.Name("X-Camlib-Request")!
        let site = HTTPField.Name("Sec-Fetch-Site")!
        let nosniff = HTTPField.Name("X-Content-Type-Options")!
        try await corpus.test { client in
            for method in [HTTPRequest.Method.put, .delete, .patch] {
                try await client.execute(uri: "/api/assets/\(still.id)/revert", method: method) { response in
                    #expect(response.status == .forbidden, "\(method)")
                    #expect(response.headers[nosniff] == "nosniff")
                }
            }
            try await client.execute(uri: "/api/assets/\(still.id)/edit-preview?filters=comic", method: .get, headers: [site: "cross-site"]) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/media/\(still.id)/1/thumbnail", method: .get, headers: [site: "cross-site"]) {
                #expect($0.status == .forbidden)
            }
            // Nor start a download of the library (a ZIP reads every file it names).
            try await client.execute(uri: "/download?assets=\(still.id)", method: .get, headers: [site: "cross-site"]) {
                #expect($0.status == .forbidden)
            }
            try await client.execute(uri: "/download?assets=\(still.id)", method: .get, headers: [site: "none"]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/", method: .get, headers: [site: "cross-site"]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/assets?limit=1", method: .get, headers: [site: "same-origin"]) { response in
                #expect(response.status == .ok)
                #expect(response.headers[nosniff] == "nosniff")
            }
            try await client.execute(uri: "/api/assets/999999", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[nosniff] == "nosniff")
            }
            let long = String(repeating: "x", count: 900)
            try await client.execute(
                uri: "/api/albums", method: .post, headers: [header: "1"], body: ByteBuffer(string: #"{"name": "\#(long)"}"#)
            ) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("at most 200 characters") && response.text.count < 400, "\(response.text)")
            }
        }
    }

    @Test func onLoopbackOnlyLoopbackHostNamesAreAnswered() {
        // A page of another site whose host name was made to resolve to 127.0.0.1 (DNS
        // rebinding) sends its own name: refused.
        let policy = AccessPolicy(token: nil, host: "127.0.0.1")
        for host in ["127.0.0.1:8765", "localhost:1", "LOCALHOST", "[::1]:8765", "127.0.0.1"] { #expect(policy.acceptsHost(host), "\(host)") }
        for host in ["evil.example:8765", "evil.example", "127.0.0.1.evil.example", "", "[::2]:80"] { #expect(!policy.acceptsHost(host), "\(host)") }
        #expect(!policy.acceptsHost(nil))
        // With a token, the token is the guard, whatever name the server is reached by.
        #expect(AccessPolicy(token: "t", host: "0.0.0.0").acceptsHost("photos.lan:8765"))
        #expect(AccessPolicy.isLoopback("127.0.0.1") && AccessPolicy.isLoopback("::1") && !AccessPolicy.isLoopback("0.0.0.0"))
    }

    @Test func offLoopbackEveryRequestNeedsTheToken() async throws {
        let corpus = try GalleryLibrary.shared()
        let token = "0123456789abcdef0123456789abcdef"
        try await corpus.test(host: "0.0.0.0", token: token) { client in
            for uri in ["/", "/api/assets", "/static/gallery.js", "/api/years"] {
                try await client.execute(uri: uri, method: .get) { #expect($0.status == .unauthorized, "\(uri)") }
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.authorization: "Bearer wrong-\(token.dropFirst(6))"]) {
                #expect($0.status == .unauthorized)
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.authorization: "Bearer \(token)"]) { #expect($0.status == .ok) }
            try await client.execute(uri: "/?token=\(token)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.setCookie]?.contains("camlib_token=\(token)") == true)
                #expect(response.headers[.setCookie]?.contains("HttpOnly") == true)
            }
            try await client.execute(uri: "/api/assets", method: .get, headers: [.cookie: "other=1; camlib_token=\(token)"]) {
                #expect($0.status == .ok)
            }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func previewsAreOrientedJPEGsMadeOnce(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        // EXIF orientation 6 (a JPEG) and irot (a HEIC): both shown upright.
        for (file, portrait) in [("orientation/Landscape_6.jpg", false), ("apple-live-photo/IMG_3582.HEIC", true)] {
            let asset = try corpus.asset(file)
            let still = try #require(try corpus.library.media(of: [asset.id])[asset.id]?.still)
            let (first, second) = try await corpus.test { client in
                let a = try await client.execute(uri: "/media/\(asset.id)/\(still)/preview", method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/jpeg")
                    return Array(buffer: response.body)
                }
                let b = try await client.execute(uri: "/media/\(asset.id)/\(still)/preview", method: .get) { Array(buffer: $0.body) }
                return (a, b)
            }
            #expect(first == second)
            let size = try jpegSize(first)
            #expect(max(size.width, size.height) <= 2048)
            #expect((size.height > size.width) == portrait, "\(file): \(size)")
            #expect(size.width * (asset.height ?? 0) - size.height * (asset.width ?? 0) < max(size.width, size.height) * 2, "aspect of \(file)")
        }
    }

    @Test(arguments: CatalogBackend.allCases) func liveMovieIsServedAsH264KeepingItsFramesAndSound(on backend: CatalogBackend) async throws {
        let corpus = try GalleryLibrary.shared(on: backend)
        let live = try corpus.asset("apple-live-photo/IMG_3582.HEIC")
        // The movie shown: Apple's rendered edit is the current version.
        let original = try #require(live.resources.first { $0.role == .renderedVideo } ?? live.resources.first { $0.role == .pairedVideo })
        let movie = try #require(try corpus.library.media(of: [live.id])[live.id]?.movie)
        let body = try await corpus.test { client in
            try await client.execute(uri: "/media/\(live.id)/\(movie)/movie", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "video/mp4")
                return Array(buffer: response.body)
            }
        }
        let scratch = try ScratchDirectory()
        let file = scratch.file("proxy.mov")
        try Data(body).write(to: URL(fileURLWithPath: file))
        func streams(_ path: String) throws -> [String] {
            try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,codec_name,nb_read_frames", "-of", "csv=p=0", path])
                .stdout.split(separator: "\n").map(String.init)
        }
        let proxy = try streams(file), source = try streams(original.path)
        #expect(proxy.first?.hasPrefix("h264,video,") == true, "\(proxy)")
        #expect(proxy.first?.split(separator: ",").last == source.first?.split(separator: ",").last, "same frame count: \(proxy) \(source)")
        #expect(proxy.dropFirst() == source.dropFirst(), "other tracks kept")
    }

    @Test(arguments: CatalogBackend.allCases) func anEditsThumbnailShowsTheEditAndRevertBringsTheOriginalBack(on backend: CatalogBackend) async throws {
        let own = try GalleryLibrary(folders: ["orientation"], on: backend)
        let asset = try own.asset("orientation/Landscape_3.jpg")
        let original = try #require(try own.library.media(of: [asset.id])[asset.id]?.still)
        _ = try own.library.edit(asset: asset.id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let edited = try #require(try own.library.media(of: [asset.id])[asset.id]?.still)
        #expect(edited != original)
        let header = HTTPField.Name("X-Camlib-Request")!
        try await own.test { client in
            let media = try await client.execute(uri: "/api/assets/\(asset.id)", method: .get) { try $0.object()["media"] as? [String: Any] ?? [:] }
            #expect(media["thumbnail"] as? String == "/media/\(asset.id)/\(edited)/thumbnail")
            try await client.execute(uri: "/media/\(asset.id)/\(edited)/thumbnail", method: .get) { response in
                #expect(response.status == .ok)
                let gray = try isGray(Array(buffer: response.body))
                #expect(gray)
            }
            try await client.execute(uri: "/media/\(asset.id)/\(original)/thumbnail", method: .get) { response in
                let gray = try isGray(Array(buffer: response.body))
                #expect(!gray)
            }
            try await client.execute(uri: "/api/assets/\(asset.id)/revert", method: .post, headers: [header: "1"]) { response in
                let object = try response.object()
                #expect(object["reverted"] as? Bool == true)
                let media = (object["asset"] as? [String: Any])?["media"] as? [String: Any]
                #expect(media?["thumbnail"] as? String == "/media/\(asset.id)/\(original)/thumbnail")
            }
        }
    }

    @Test(arguments: CatalogBackend.allCases) func aTrashedAssetLeavesThePagesUntilRestored(on backend: CatalogBackend) async throws {
        let own = try GalleryLibrary(folders: ["orientation"], on: backend)
        let asset = try own.asset("orientation/Landscape_3.jpg")
        func listed() async throws -> [Int64] {
            try await own.test { client in
                try await client.execute(uri: "/api/assets?limit=500", method: .get) { response in
                    let assets = try response.object()["assets"] as? [[String: Any]] ?? []
                    return assets.compactMap { ($0["id"] as? NSNumber)?.int64Value }
                }
            }
        }
        let all = try await listed()
        #expect(all.contains(asset.id))
        _ = try own.library.trash([asset.id])
        #expect(try await listed() == all.filter { $0 != asset.id })
        _ = try own.library.restore([asset.id])
        #expect(try await listed() == all)
    }

    @Test(arguments: CatalogBackend.allCases) func favouritesAlbumsKeywordsAndTheTrashChangeThroughTheAPI(on backend: CatalogBackend) async throws {
        let own = try GalleryLibrary(folders: ["orientation"], on: backend)
        let a = try own.asset("orientation/Landscape_3.jpg").id
        let b = try own.asset("orientation/Landscape_4.jpg").id
        let write: HTTPFields = [HTTPField.Name("X-Camlib-Request")!: "1", .contentType: "application/json"]
        try await own.test { client in
            func post(_ uri: String, _ body: String, expect status: HTTPResponse.Status = .ok) async throws -> Any {
                try await client.execute(uri: uri, method: .post, headers: write, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == status, "\(uri) \(body): \(response.text)")
                    return try response.json()
                }
            }
            func listed(_ filters: String) async throws -> [Int64] {
                try await client.execute(uri: "/api/assets?limit=500&\(filters)", method: .get) { response in
                    #expect(response.status == .ok, "\(filters): \(response.text)")
                    let assets = try response.object()["assets"] as? [[String: Any]] ?? []
                    return assets.compactMap { ($0["id"] as? NSNumber)?.int64Value }.sorted()
                }
            }

            _ = try await post("/api/assets/favorite", #"{"assets": [\#(a), \#(b)], "favorite": true}"#)
            _ = try await post("/api/assets/favorite", #"{"assets": [\#(b)], "favorite": false}"#)
            #expect(try await listed("favorite=1") == [a])
            _ = try await post("/api/assets/favorite", #"{"assets": [999999], "favorite": true}"#, expect: .notFound)
            _ = try await post("/api/assets/favorite", #"{"assets": "all"}"#, expect: .badRequest)

            _ = try await post("/api/assets/keywords", #"{"assets": [\#(a), \#(b)], "add": ["beach", "sun"]}"#)
            _ = try await post("/api/assets/keywords", #"{"assets": [\#(b)], "remove": ["sun"]}"#)
            #expect(try await listed("keyword=beach&keyword=sun") == [a])
            let keywords = try await client.execute(uri: "/api/keywords", method: .get) { try $0.json() as? [[String: Any]] ?? [] }
            #expect(keywords.map { $0["name"] as? String } == ["beach", "sun"] && keywords.map { $0["assets"] as? Int } == [2, 1])

            let album = try #require((try await post("/api/albums", #"{"name": "Lisbon"}"#, expect: .created) as? [String: Any])?["id"] as? Int)
            _ = try await post("/api/albums", #"{"name": "Lisbon"}"#, expect: .conflict)
            _ = try await post("/api/albums/\(album)/assets", #"{"add": [\#(b), \#(a)]}"#)
            #expect(try await listed("album=Lisbon") == [a, b].sorted())
            // In the album's own order (as added), a page at a time.
            var inOrder: [Int64] = []
            var after = ""
            repeat {
                let page = try await client.execute(uri: "/api/albums/\(album)/assets?limit=1&after=\(after)", method: .get) { try $0.object() }
                inOrder += (page["assets"] as? [[String: Any]] ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value }
                after = page["next"] as? String ?? ""
            } while !after.isEmpty && inOrder.count < 5
            #expect(inOrder == [b, a])
            try await client.execute(uri: "/api/albums/999999/assets", method: .get) { #expect($0.status == .notFound) }
            _ = try await post("/api/albums/\(album)", #"{"name": "Lisbon 2025", "cover": \#(a)}"#)
            let albums = try await client.execute(uri: "/api/albums", method: .get) { try $0.json() as? [[String: Any]] ?? [] }
            #expect(albums.count == 1 && albums[0]["name"] as? String == "Lisbon 2025" && (albums[0]["cover"] as? NSNumber)?.int64Value == a)
            #expect((albums[0]["thumbnail"] as? String)?.hasPrefix("/media/\(a)/") == true)
            _ = try await post("/api/albums/\(album)/assets", #"{"remove": [\#(b)]}"#)
            #expect(try await listed("album=Lisbon%202025") == [a])
            _ = try await post("/api/albums/\(album)/delete", "", expect: .conflict)
            _ = try await post("/api/albums/999999/delete", "", expect: .notFound)
            _ = try await post("/api/albums/\(album)/delete", #"{"evenIfNotEmpty": true}"#)
            #expect(try own.library.albums().isEmpty)
            #expect(try own.library.describe([a])[0].albums.isEmpty, "the asset stays, out of the album")

            let everything = try await listed("")
            _ = try await post("/api/assets/trash", #"{"assets": [\#(a)]}"#)
            #expect(try await listed("") == everything.filter { $0 != a })
            #expect(try await listed("trashed=1") == [a])
            #expect(try await listed("keyword=beach") == [b], "a trashed asset leaves every view but the trash")
            let count = try await client.execute(uri: "/api/trash", method: .get) { try $0.object()["assets"] as? Int }
            #expect(count == 1)
            _ = try await post("/api/assets/restore", #"{"assets": [\#(a)]}"#)
            #expect(try await listed("") == everything)
            _ = try await post("/api/assets/trash", #"{"assets": [\#(b)]}"#)
            let emptied = try await post("/api/trash/empty", "") as? [String: Any]
            #expect((emptied?["assets"] as? [NSNumber])?.map(\.int64Value) == [b])
            #expect(try await listed("trashed=1").isEmpty)
            #expect(try await listed("") == everything.filter { $0 != b })
            #expect(try own.library.verify(quick: true).sound)
        }
    }

    @Test(arguments: CatalogBackend.allCases) func editsStartedFromThePageRunAsJobs(on backend: CatalogBackend) async throws {
        let own = try GalleryLibrary(folders: ["orientation"], on: backend)
        let asset = try own.asset("orientation/Landscape_5.jpg")
        let header = HTTPField.Name("X-Camlib-Request")!
        try await own.test(workers: 1) { client in
            try await client.execute(
                uri: "/api/assets/\(asset.id)/edit", method: .post, headers: [header: "1"], body: ByteBuffer(string: #"{"filters": ["blur"]}"#)
            ) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("unknown filter"))
            }
            let job = try await client.execute(
                uri: "/api/assets/\(asset.id)/edit", method: .post, headers: [header: "1"], body: ByteBuffer(string: #"{"filters": ["sepia"]}"#)
            ) { response in
                #expect(response.status == .accepted)
                return try response.object()["job"] as? String ?? ""
            }
            var state = "queued"
            for _ in 0..<600 where state == "running" || state == "queued" {
                try await Task.sleep(for: .milliseconds(100))
                state = try await client.execute(uri: "/api/jobs/\(job)", method: .get) { try $0.object()["state"] as? String ?? "" }
            }
            #expect(state == "done")
        }
        let after = try own.library.describe([asset.id])[0]
        #expect(after.adjustments.count == 1 && after.adjustments[0].current)
        #expect(after.adjustments[0].data.contains("sepia"))
    }

    /// A selection's edits: one render job per asset, as a batch the page follows as a
    /// whole; an asset no longer in the library is named, not an error for the rest.
    @Test func aSelectionIsEditedAsOneBatch() async throws {
        let own = try GalleryLibrary(folders: ["orientation"])
        let ids = try ["orientation/Landscape_1.jpg", "orientation/Landscape_6.jpg"].map { try own.asset($0).id }
        let header = HTTPField.Name("X-Camlib-Request")!
        let final = try await own.test(workers: 1) { client in
            func post(_ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(uri: "/api/edits", method: .post, headers: [header: "1"], body: ByteBuffer(string: body)) {
                    ($0.status, try $0.object())
                }
            }
            #expect(try await post(#"{"assets": [\#(ids[0])], "filters": ["blur"]}"#).0 == .badRequest)
            #expect(try await post(#"{"assets": [], "filters": ["noir"]}"#).0 == .badRequest)
            #expect(try await post(#"{"assets": [\#(ids[0])], "filters": []}"#).0 == .badRequest)
            try await client.execute(uri: "/api/edits/gallery-nothing", method: .get) { #expect($0.status == .notFound) }
            let (status, started) = try await post(#"{"assets": [\#(ids[0]), \#(ids[1]), 999999], "filters": ["noir"]}"#)
            #expect(status == .accepted)
            #expect(started["total"] as? Int == 2 && started["missing"] as? [Int] == [999999], "\(started)")
            let batch = try #require(started["batch"] as? String)
            var state: [String: Any] = started
            for _ in 0..<2400 {
                state = try await client.execute(uri: "/api/edits/\(batch)", method: .get) { try $0.object() }
                if (state["done"] as? Int ?? 0) + (state["failed"] as? Int ?? 0) == 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            return (state["done"] as? Int, state["failed"] as? Int, "\(state)")
        }
        #expect(final.0 == 2 && final.1 == 0, "\(final.2)")
        for asset in try own.library.describe(ids) {
            #expect(asset.adjustments.first { $0.current }?.data.contains("noir") == true, "asset \(asset.id)")
        }
    }

    /// After an import that left its thumbnails to workers, the page is told which tiles'
    /// thumbnails are pending, and asks again until a worker has made them.
    @Test(arguments: CatalogBackend.allCases) func thumbnailsLeftToWorkersArePendingUntilOneMakesThem(on backend: CatalogBackend) async throws {
        let own = try GalleryLibrary(folders: ["apple-live-photo", "orientation"], leavingWorkToWorkers: true, on: backend)
        @Sendable func pages(_ client: any TestClientProtocol) async throws -> [Int64: Bool] {
            let page = try await client.execute(uri: "/api/assets?limit=500", method: .get) { try $0.object() }
            var pending: [Int64: Bool] = [:]
            for asset in page["assets"] as? [[String: Any]] ?? [] {
                let media = asset["media"] as? [String: Any] ?? [:]
                pending[(asset["id"] as? NSNumber)?.int64Value ?? 0] = media["thumbnailPending"] as? Bool
            }
            return pending
        }
        @Sendable func asked(_ client: any TestClientProtocol, _ ids: [Int64]) async throws -> [Int64] {
            try await client.execute(uri: "/api/thumbnails/pending?assets=\(ids.map(String.init).joined(separator: ","))", method: .get) {
                ((try $0.object()["pending"] as? [NSNumber]) ?? []).map(\.int64Value)
            }
        }
        let before = try await own.test(workers: 0) { client in
            let listed = try await pages(client)
            return (listed, try await asked(client, listed.keys.sorted()))
        }
        let waiting = before.0.filter { $0.value == true }.keys.sorted()
        #expect(!waiting.isEmpty && waiting.count < before.0.count, "\(before.0)")
        #expect(before.0.values.allSatisfy { $0 != nil }, "every asset says whether its thumbnail is pending")
        #expect(before.1 == waiting)
        let after = try await own.test(workers: 1) { client in
            var left = waiting
            for _ in 0..<2400 where !left.isEmpty {
                try await Task.sleep(for: .milliseconds(100))
                left = try await asked(client, waiting)
            }
            return (left, try await pages(client))
        }
        #expect(after.0.isEmpty)
        #expect(after.1.values.allSatisfy { $0 == false }, "\(after.1)")
        try await own.test(workers: 0) { client in
            for id in waiting {
                let media = try #require(try own.library.media(of: [id])[id])
                let shown = try #require(media.still ?? media.movie)
                try await client.execute(uri: "/media/\(id)/\(shown)/thumbnail", method: .get) { #expect($0.status == .ok) }
            }
        }
    }

    /// An edit asked for while no worker runs (the gallery stopped before it ran it) is a
    /// row: the next gallery's workers run it, and the page asking after it sees it done.
    @Test func anEditOutlivesARestartOfTheGallery() async throws {
        let own = try GalleryLibrary(folders: ["orientation"])
        let asset = try own.asset("orientation/Landscape_3.jpg")
        let header = HTTPField.Name("X-Camlib-Request")!
        let job = try await own.test(workers: 0) { client in
            try await client.execute(
                uri: "/api/assets/\(asset.id)/edit", method: .post, headers: [header: "1"], body: ByteBuffer(string: #"{"filters": ["noir"]}"#)
            ) { try $0.object()["job"] as? String ?? "" }
        }
        let state = try await own.test(workers: 1) { client in
            var state = "queued"
            for _ in 0..<600 where state == "running" || state == "queued" {
                try await Task.sleep(for: .milliseconds(100))
                state = try await client.execute(uri: "/api/jobs/\(job)", method: .get) { try $0.object()["state"] as? String ?? "" }
            }
            return state
        }
        #expect(state == "done")
        #expect(try own.library.describe([asset.id])[0].adjustments.first?.data.contains("noir") == true)
    }

    /// The page's edits are render jobs, run by the workers beside the gallery: one at a
    /// time with one worker; a worker that crashes (killed here, as the kernel kills one
    /// that exhausts memory) costs that job one attempt, the job is run again, and the
    /// gallery answers throughout.
    @Test func aRenderWhoseWorkerCrashesIsRunAgainAndEditsTakeTurns() async throws {
        let own = try GalleryLibrary(folders: ["apple-live-photo"])
        let live = try own.asset("apple-live-photo/IMG_4394.HEIC")
        let other = try own.asset("apple-live-photo/IMG_3582.HEIC")
        let header = HTTPField.Name("X-Camlib-Request")!
        let library = own.library
        try await own.test(workers: 1) { client in
            func start(_ id: Int64) async throws -> [String: Any] {
                try await client.execute(
                    uri: "/api/assets/\(id)/edit", method: .post, headers: [header: "1"], body: ByteBuffer(string: #"{"filters": ["comic"]}"#)
                ) { response in
                    #expect(response.status == .accepted)
                    return try response.object()
                }
            }
            func state(_ job: String) async throws -> [String: Any] {
                try await client.execute(uri: "/api/jobs/\(job)", method: .get) { try $0.object() }
            }
            // A thread of its own watches the catalog and kills the worker the moment it
            // runs the first edit: the test's tasks may wait many minutes for a turn on a
            // busy machine (every thread of the test's pool taken by tests that wait on
            // programs), longer than the render takes. Its time counts from when the job
            // exists, and it gives up early if the job ends without being seen running.
            let watcher = RenderKiller(library: library, asset: live.id)
            defer { watcher.stop() }
            let first = try #require(try await start(live.id)["job"] as? String)
            let second = try #require(try await start(other.id)["job"] as? String)
            let kill = try await watcher.killed(job: Int64(first)!, within: .seconds(900)).get()
            #expect(kill.job == Int64(first))
            // The gallery still answers; the job goes back, and both edits are done.
            try await client.execute(uri: "/api/assets/\(live.id)", method: .get) { #expect($0.status == .ok) }
            // Two renders after the kill, each minutes long on a loaded machine.
            var states: [String] = []
            let end = ContinuousClock.now + .seconds(1800)
            while ContinuousClock.now < end {
                states = [try await state(first)["state"] as? String ?? "", try await state(second)["state"] as? String ?? ""]
                if states.allSatisfy({ $0 == "done" || $0 == "failed" }) { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let said = "\(try await state(first)) \(try await state(second))"
            #expect(states == ["done", "done"], "\(said)")
            let retried = try #require(try library.job(Int64(first)!))
            #expect(retried.attempt == 2 && retried.lastError?.contains("crashed (Killed)") == true, "\(retried)")
            // One worker: the second edit waited its turn, and started after the kill.
            let waited = try #require(try library.job(Int64(second)!))
            #expect((waited.startedAt ?? "") > kill.at, "\(waited) started before the first's worker was killed at \(kill.at)")
        }
        #expect(try own.library.describe([live.id])[0].adjustments.filter { $0.formatIdentifier == "org.camlib.filters" }.count == 1)
        #expect(try own.library.verify(quick: true).sound)
    }

    /// A browsers' copy is made in a child camlib: when it dies (killed here, as the
    /// kernel kills one that exhausts memory), the request says so and the gallery goes on;
    /// asked again, the copy is made.
    @Test func aBrowsersCopyIsMadeInAChildWhoseDeathCostsThatRequestOnly() async throws {
        let own = try GalleryLibrary(folders: ["apple-live-photo"])
        let live = try own.asset("apple-live-photo/IMG_4394.HEIC")
        let movie = try #require(try own.library.media(of: [live.id])[live.id]?.movie)
        // The first display worker dies at once, as one the kernel kills does; the next
        // does its work (a camlib behind a script that kills its first child).
        let mark = own.scratch.file("killed-once")
        let wrapper = try own.camlibWhoseDisplayWorkersDie(marking: mark, onlyTheFirst: true)
        try await own.test(executable: wrapper) { client in
            try await client.execute(uri: "/media/\(live.id)/\(movie)/movie", method: .get) { response in
                #expect(response.status == .unprocessableContent)
                #expect(response.text.contains("the decoder crashed on it (Killed); the gallery goes on"), "\(response.text)")
            }
            #expect(FileManager.default.fileExists(atPath: mark), "no child made the proxy")
            try await client.execute(uri: "/api/assets/\(live.id)", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/media/\(live.id)/\(movie)/movie", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "video/mp4")
            }
        }
    }

    /// An H.264 movie plays as it is: the catalog's codec says so, and no child camlib is
    /// started to read it (here every child would die).
    @Test func anH264MovieIsServedAsItIsWithoutAChild() async throws {
        let own = try GalleryLibrary(folders: ["apple-live-photo"])
        let live = try own.asset("apple-live-photo/51F2BEF7-431A-4D31-8AC1-3284A57826AE.jpeg")
        let movie = try #require(try own.library.media(of: [live.id])[live.id]?.movie)
        let mark = own.scratch.file("child-started")
        let wrapper = try own.camlibWhoseDisplayWorkersDie(marking: mark, onlyTheFirst: false)
        try await own.test(executable: wrapper) { client in
            try await client.execute(uri: "/media/\(live.id)/\(movie)/movie", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "video/mp4", "\(response.text.prefix(200))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: mark), "a child was started for an H.264 movie")
    }

    @Test func byteRangesAreReadAsRFC9110Says() {
        #expect(ByteRange.parse("bytes=0-0", size: 10) == .part(0...0))
        #expect(ByteRange.parse("bytes=5-", size: 10) == .part(5...9))
        #expect(ByteRange.parse("bytes=5-100", size: 10) == .part(5...9))
        #expect(ByteRange.parse("bytes=-3", size: 10) == .part(7...9))
        #expect(ByteRange.parse("bytes=-30", size: 10) == .part(0...9))
        #expect(ByteRange.parse("bytes=10-", size: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-1,4-5", size: 10) == .whole)
        #expect(ByteRange.parse("bytes=5-2", size: 10) == .whole)
        #expect(ByteRange.parse("items=0-1", size: 10) == .whole)
    }
}

/// Kills the worker process that runs a render of an asset, from a thread of its own that
/// looks at the catalog every 10 ms until it kills one, is stopped, or gives up on the job
/// it was told of (ended without being seen running, or not run in time).
private final class RenderKiller: @unchecked Sendable {
    struct Kill {
        var job: Int64
        var pid: Int32
        /// When, as the catalog writes times.
        var at: String
    }

    /// Why no worker was killed.
    struct Missed: Error, CustomStringConvertible {
        var description: String
    }

    private let lock = NSLock()
    private var watched: (job: Int64, until: ContinuousClock.Instant)?
    private var stopped = false
    private var outcome: Result<Kill, Missed>?
    private var waiter: CheckedContinuation<Result<Kill, Missed>, Never>?

    init(library: PhotoLibrary, asset: Int64) {
        Thread { [self] in
            var lastError: (any Error)?
            while true {
                lock.lock()
                let (watched, stopped) = (self.watched, self.stopped)
                lock.unlock()
                if stopped { return finish(.failure(Missed(description: "stopped before a kill"))) }
                do {
                    let running = try library.jobQueueStatus().running
                    if let job = running.first(where: { $0.kind == .render && $0.asset == asset }), let pid = job.pid, Glibc.kill(pid, 0) == 0 {
                        Glibc.kill(pid, SIGKILL)
                        let at = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
                        return finish(.success(Kill(job: job.id, pid: pid, at: at)))
                    }
                    if let watched, let job = try library.job(watched.job), job.state.isFinished {
                        return finish(.failure(Missed(description: "job \(watched.job) ended without being seen running: \(job)")))
                    }
                } catch {
                    lastError = error
                }
                if let watched, ContinuousClock.now > watched.until {
                    let job = (try? library.job(watched.job)).map { String(describing: $0) } ?? "unreadable"
                    let workers = (try? library.jobQueueStatus().workers).map { String(describing: $0) } ?? "unreadable"
                    let error = lastError.map { "; the catalog last said \($0)" } ?? ""
                    return finish(.failure(Missed(description: "no worker ran job \(watched.job) in time: \(job); workers: \(workers)\(error)")))
                }
                usleep(10_000)
            }
        }.start()
    }

    /// Stops the watching thread, if it still watches.
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private func finish(_ result: Result<Kill, Missed>) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: result)
        } else {
            outcome = result
            lock.unlock()
        }
    }

    /// The kill of the worker running `job`, once made; `within` counts from now.
    func killed(job: Int64, within limit: Duration) async -> Result<Kill, Missed> {
        await withCheckedContinuation { continuation in
            lock.lock()
            watched = (job, ContinuousClock.now + limit)
            if let outcome {
                lock.unlock()
                continuation.resume(returning: outcome)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}

/// Width and height of a JPEG.
func jpegSize(_ jpeg: [UInt8]) throws -> (width: Int, height: Int) {
    let decoded = try JPEGCodec.decode(jpeg)
    return (decoded.pixels.width, decoded.pixels.height)
}

/// Whether a JPEG is a gray picture: every pixel's channels within a few levels.
func isGray(_ jpeg: [UInt8]) throws -> Bool {
    let pixels = try JPEGCodec.decode(jpeg).pixels
    var far = 0
    for y in stride(from: 0, to: pixels.height, by: 4) {
        for x in stride(from: 0, to: pixels.width, by: 4) {
            let r = Int(pixels[x: x, y: y, channel: 0]), g = Int(pixels[x: x, y: y, channel: 1]), b = Int(pixels[x: x, y: y, channel: 2])
            if max(abs(r - g), abs(g - b), abs(r - b)) > 12 { far += 1 }
        }
    }
    return far == 0
}
