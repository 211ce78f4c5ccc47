import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// `camlib aux attach`: round trips, the photo's coded data untouched, and independent
/// readers (heif-info, heif-dec, exiftool) seeing the new item as intended.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxiliaryAttachTests {
    /// pug.heic's disparity map (768x576, 4:3) as a PNG, to attach to a 4:3 photo that has none.
    static func pugDisparity(in scratch: ScratchDirectory) throws -> String {
        let out = try scratch.subdirectory("pug")
        let results = try LooseFileAuxiliaryImages.extract(
            path: Media.path("apple-portrait-heic/pug.heic"), types: [.disparity], to: out, overwrite: false)
        return try #require(results.first?.path)
    }

    static func samples(_ png: String) throws -> ImageSamples {
        try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: png)))).samples
    }

    @Test func losslessAttachRoundTripsAndLeavesThePhotosCodedDataAlone() throws {
        let scratch = try ScratchDirectory()
        let source = Media.path("apple-misc/iphone_7.heic")
        #expect(try LooseFileAuxiliaryImages.describe(path: source).aux.isEmpty)
        let png = try Self.pugDisparity(in: scratch)
        let result = try AuxiliaryAttacher.attach(toFile: source, type: .depth, from: png, options: .init())
        #expect(result.maxError == 0)
        let output = scratch.url.appendingPathComponent("with-depth.heic")
        try AuxiliaryAttacher.write(result, to: output, overwrite: false)

        // extract(attach(x)) == x
        let back = try LooseFileAuxiliaryImages.extract(path: output.path, types: [.depth], to: try scratch.subdirectory("back"), overwrite: false)
        #expect(try Self.samples(try #require(back.first?.path)) == (try Self.samples(png)))

        // Every item of the original has the same coded bytes in the new file.
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        let after = try [UInt8](Data(contentsOf: output))
        let oldMeta = try HEIFMetaBox(file: before), newMeta = try HEIFMetaBox(file: after)
        #expect(oldMeta.locations.count + 1 == newMeta.locations.count)
        for location in oldMeta.locations where location.constructionMethod == 0 {
            #expect(try newMeta.data(of: location.itemID, in: after) == (try oldMeta.data(of: location.itemID, in: before)), "item \(location.itemID)")
        }

        // Independent readers.
        let info = try run("heif-info", [output.path])
        #expect(info.status == 0)
        #expect(info.stdout.contains("depth channel: yes") && info.stdout.contains("size: 768x576"), "\(info.stdout)")
        let exif = try run("exiftool", ["-s3", "-AuxiliaryImageType", output.path])
        #expect(exif.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "urn:mpeg:hevc:2015:auxid:2")
        let decoded = scratch.url.appendingPathComponent("dec.png").path
        let heifDec = try run("heif-dec", ["--with-aux", output.path, decoded])
        #expect(heifDec.status == 0, "\(heifDec.stderr)")
        guard case .eight(let theirs) = try Self.samples(decoded.replacingOccurrences(of: ".png", with: "-depth.png")),
            case .eight(let mine) = try Self.samples(png)
        else {
            Issue.record("heif-dec's depth PNG is not 8-bit")
            return
        }
        #expect(stride(from: 0, to: theirs.components.count, by: theirs.channels).map { theirs.components[$0] } == mine.components)
    }

    @Test func aMatteAttachedToARotatedPhotoTurnsWithIt() throws {
        // IMG_3582.HEIC: irot 270, displayed 4284x5712. A 1071x1428 matte with a pattern
        // that tells every orientation apart.
        let scratch = try ScratchDirectory()
        var matte = PixelBuffer<UInt8>(width: 1071, height: 1428, channels: 1)
        for y in 0..<matte.height { for x in 0..<matte.width { matte[x: x, y: y, channel: 0] = UInt8((x / 7 + y * 3 / 11) & 0xFF) } }
        matte[x: 0, y: 0, channel: 0] = 255
        let png = scratch.file("matte.png")
        try Data(try PNGCodec.encode(.eight(matte))).write(to: URL(fileURLWithPath: png))
        let source = Media.path("apple-live-photo/IMG_3582.HEIC")
        let result = try AuxiliaryAttacher.attach(toFile: source, type: .skinMatte, from: png, options: .init())
        #expect(result.attached.width == 1071 && result.attached.height == 1428 && result.maxError == 0)
        let output = scratch.url.appendingPathComponent("matte.heic")
        try AuxiliaryAttacher.write(result, to: output, overwrite: false)
        // heif-dec applies the item's transformations on its own.
        let decoded = scratch.file("dec.png")
        let dec = try run("heif-dec", ["--with-aux", "--no-colons", output.path, decoded])
        #expect(dec.status == 0, "\(dec.stderr)")
        guard case .eight(let theirs) = try Self.samples(scratch.file("dec-urn_com_apple_photo_2019_aux_semanticskinmatte.png")) else {
            Issue.record("not 8-bit")
            return
        }
        #expect(theirs.width == 1071 && theirs.height == 1428)
        #expect(stride(from: 0, to: theirs.components.count, by: theirs.channels).map { theirs.components[$0] } == matte.components)
        // The still keeps its own aux items (disparity, gain map) beside the new one.
        let types = try LooseFileAuxiliaryImages.describe(path: output.path).aux.map(\.type)
        #expect(Set(types) == [.disparity, .hdrGainMap, .skinMatte])
    }

    @Test func tenAndTwelveBitDepthMapsAttachAsMain10And12AndSixteenBitIsRefusedWithTheReason() throws {
        let scratch = try ScratchDirectory()
        guard case .eight(let pug) = try Self.samples(try Self.pugDisparity(in: scratch)) else {
            Issue.record("pug's disparity is not 8-bit")
            return
        }
        for bits in [10, 12] {
            // A deeper map of the same shape: the 8-bit levels with fine steps between them.
            let deep = PixelBuffer<UInt16>(
                width: pug.width, height: pug.height, channels: 1,
                components: pug.components.enumerated().map { UInt16($0.element) << (bits - 8) | UInt16($0.offset % (1 << (bits - 8))) })
            let png = scratch.file("depth\(bits).png")
            // As `aux extract` writes them: full range, sBIT giving the depth.
            try Data(try PNGCodec.encode(.sixteen(deep, significantBits: bits))).write(to: URL(fileURLWithPath: png))
            let result = try AuxiliaryAttacher.attach(toFile: Media.path("apple-misc/iphone_7.heic"), type: .depth, from: png, options: .init())
            #expect(result.maxError == 0 && result.attached.bitDepth == bits, "\(bits) bits")
            #expect(result.attached.samples == .sixteen(deep, significantBits: bits))
            let output = scratch.url.appendingPathComponent("depth\(bits).heic")
            try AuxiliaryAttacher.write(result, to: output, overwrite: false)
            // heif-info, a separate reader, sees the aux item's bit depth.
            let info = try run("heif-info", [output.path])
            #expect(info.status == 0 && info.stdout.contains("bits per pixel: \(bits)"), "\(info.stdout)")
        }
        // 16 significant bits: HEVC codes at most 12.
        let sixteen = PixelBuffer<UInt16>(width: pug.width, height: pug.height, channels: 1, components: pug.components.map { UInt16($0) * 257 })
        let png = scratch.file("depth16.png")
        try Data(try PNGCodec.encode(.sixteen(sixteen, significantBits: 16))).write(to: URL(fileURLWithPath: png))
        do {
            _ = try AuxiliaryAttacher.attach(toFile: Media.path("apple-misc/iphone_7.heic"), type: .depth, from: png, options: .init())
            Issue.record("a 16-bit map was attached")
        } catch {
            #expect("\(error)".contains("16 significant bits") && "\(error)".contains("at most 12"), "\(error)")
        }
    }

    @Test func lossyAttachIsWithinOneLevel() throws {
        let scratch = try ScratchDirectory()
        var options = HEIFAuxiliaryWriter.Options()
        options.lossless = false
        let result = try AuxiliaryAttacher.attach(
            toFile: Media.path("apple-misc/iphone_7.heic"), type: .depth, from: try Self.pugDisparity(in: scratch), options: options)
        #expect(result.maxError <= 1)
    }

    @Test func refusesWhatWouldBeWrong() throws {
        let scratch = try ScratchDirectory()
        let png = try Self.pugDisparity(in: scratch)
        // pug.heic already has a depth item.
        #expect(throws: (any Error).self) {
            try AuxiliaryAttacher.attach(toFile: Media.path("apple-portrait-heic/pug.heic"), type: .depth, from: png, options: .init())
        }
        // A 4:3 landscape map on a portrait photo (IMG_3582 is displayed 3:4).
        do {
            _ = try AuxiliaryAttacher.attach(
                toFile: Media.path("apple-live-photo/IMG_3582.HEIC"), type: .skinMatte, from: png, options: .init())
            Issue.record("a landscape map was attached to a portrait photo")
        } catch {
            #expect("\(error)".contains("displayed 4284x5712"))
        }
        // Not a photo.
        #expect(throws: AuxiliaryError.self) {
            try AuxiliaryAttacher.attach(toFile: Media.path("apple-live-photo/IMG_3582.mov"), type: .depth, from: png, options: .init())
        }
    }

    @Test func attachingToALibraryAssetKeepsTheOriginalAndListsTheNewImage() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let source = Media.path("apple-misc/iphone_7.heic")
        _ = try Importer(library: library).run(paths: [source])
        let id = try library.findAsset(source)
        let (path, result) = try library.attachAuxiliaryImage(to: id, type: .depth, from: try Self.pugDisparity(in: scratch), options: .init())
        #expect(result.maxError == 0)
        let asset = try library.describe([id])[0]
        let original = try #require(asset.resources.first { $0.role == .photo })
        #expect(try FileReading.sha256(of: original.path) == original.sha256)
        let rendered = try #require(asset.resources.first { $0.role == .renderedPhoto })
        #expect(rendered.path == path && FileManager.default.fileExists(atPath: path))
        let depth = try #require(asset.aux.first { $0.type == .depth })
        #expect(depth.width == 768 && depth.height == 576 && depth.path.map(FileManager.default.fileExists) == true)

        // A second attach builds on the first version: the newest file holds both.
        var matte = PixelBuffer<UInt8>(width: 1008, height: 756, channels: 1)
        for i in matte.components.indices { matte.components[i] = UInt8(i % 251) }
        let png = scratch.file("matte.png")
        try Data(try PNGCodec.encode(.eight(matte))).write(to: URL(fileURLWithPath: png))
        let (second, _) = try library.attachAuxiliaryImage(to: id, type: .portraitEffectsMatte, from: png, options: .init())
        #expect(second != path)
        #expect(Set(try LooseFileAuxiliaryImages.describe(path: second).aux.map(\.type)) == [.depth, .portraitEffectsMatte])
        #expect(Set(try library.describe([id])[0].aux.map(\.type)) == [.depth, .portraitEffectsMatte])
        // An edit renders from the original and keeps the attached images too.
        let edit = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        let editedStill = try #require(edit.renders.first)
        #expect(Set(try LooseFileAuxiliaryImages.describe(path: editedStill).aux.map(\.type)) == [.depth, .portraitEffectsMatte])
        // Attaching a second depth map is refused: the current version has one.
        #expect(throws: (any Error).self) {
            try library.attachAuxiliaryImage(to: id, type: .depth, from: try Self.pugDisparity(in: try ScratchDirectory()), options: .init())
        }
    }

    @Test func depthCarriesItsDistancesAndDisparityStaysDisparity() throws {
        let scratch = try ScratchDirectory()
        let source = Media.path("apple-misc/iphone_7.heic")
        let png = try Self.pugDisparity(in: scratch)
        // A depth map with its range: written as uniform Z, read back in metres.
        let depth = try AuxiliaryAttacher.attach(toFile: source, type: .depth, from: png, options: .init(), depthRange: 0.4...7.5)
        #expect(depth.attached.type == .depth)
        #expect(depth.attached.encoding.format == "uniformZ")
        // The SEI stores each distance with a 24-bit mantissa.
        #expect(abs((depth.attached.encoding.floatMin ?? 0) - 0.4) < 1e-6 && abs((depth.attached.encoding.floatMax ?? 0) - 7.5) < 1e-6)
        let file = scratch.file("depth.heic")
        try Data(depth.bytes).write(to: URL(fileURLWithPath: file))
        let info = try run("heif-info", [file]).stdout
        #expect(info.contains("representation: uniform Z") || info.contains("uniform depth"), "\(info)")
        #expect(info.contains("z-near: 0.4") && info.contains("z-far:  7.5"), "\(info)")
        // A disparity map under the same URN is told apart by its representation.
        let disparity = try AuxiliaryAttacher.attach(toFile: source, type: .disparity, from: png, options: .init())
        #expect(disparity.attached.type == .disparity)
        // A range is for depth only, and must make sense.
        #expect(throws: (any Error).self) {
            try AuxiliaryAttacher.attach(toFile: source, type: .disparity, from: png, options: .init(), depthRange: 0.4...7.5)
        }
        #expect(throws: (any Error).self) {
            try AuxiliaryAttacher.attach(toFile: source, type: .depth, from: png, options: .init(), depthRange: 0...7.5)
        }
    }

    @Test func anAttachIsAVersionThatRevertsAndTravelsWithExport() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let source = Media.path("apple-misc/iphone_7.heic")
        _ = try Importer(library: library).run(paths: [source])
        let id = try library.findAsset(source)
        let disparity = try Self.pugDisparity(in: scratch)
        let (path, _) = try library.attachAuxiliaryImage(to: id, type: .depth, from: disparity, options: .init())
        var depthQuery = AssetQuery()
        depthQuery.has = [.aux(.depth)]

        // The attach is camlib's adjustment (version 2: the recipe holds the image as
        // given), current, with the new HEIC as its render among derived files.
        var asset = try library.describe([id])[0]
        let attach = try #require(asset.adjustments.last)
        #expect(attach.current && attach.formatIdentifier == CamlibAdjustment.formatIdentifier && attach.formatVersion == "2")
        let recipe = try #require(CamlibAdjustment.recipe(formatIdentifier: attach.formatIdentifier, formatVersion: attach.formatVersion, data: attach.data))
        #expect(recipe.steps.isEmpty && recipe.attachments.map(\.type) == [.depth])
        let attached = try #require(recipe.attachments.first)
        let given = try #require(Data(base64Encoded: attached.png))
        #expect(try PNGCodec.decodeSamples([UInt8](given)).samples == (try Self.samples(disparity)))
        #expect(path.contains("/derived/renders/") && asset.resources.contains { $0.role == .renderedPhoto && $0.path == path })
        #expect(try library.assetIDs(matching: depthQuery) == [id])

        // An edit keeps the attached image; --add-filter resumes the steps and keeps it too.
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "mono")], extending: false)
        _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "vignette")], extending: true)
        asset = try library.describe([id])[0]
        let edit = try #require(asset.adjustments.last)
        let edited = try #require(CamlibAdjustment.recipe(formatIdentifier: edit.formatIdentifier, formatVersion: edit.formatVersion, data: edit.data))
        #expect(edited.steps.map(\.name) == ["mono", "vignette"] && edited.attachments == recipe.attachments)
        #expect(asset.aux.map(\.type) == [.depth] && asset.aux.allSatisfy { $0.path.map(FileManager.default.fileExists) == true })
        try CatalogChecks.expectSummaryAgrees(library)

        // Export, then import elsewhere: the history and the attached depth come back.
        let out = try scratch.subdirectory("export")
        _ = try Exporter.export(asset, from: library, to: out, originalOnly: false)
        let other = try PhotoLibrary(root: scratch.url.appendingPathComponent("other"), mode: .create)
        _ = try Importer(library: other).run(paths: [out.path])
        let restored = try other.describe([try other.findAsset(source)])[0]
        #expect(restored.adjustments.map(\.data) == asset.adjustments.map(\.data))
        #expect(restored.aux.map(\.type) == [.depth] && restored.resources.contains { $0.role == .renderedPhoto })

        // Revert: the original again, with none of the attached images.
        #expect(try library.revert(asset: id))
        asset = try library.describe([id])[0]
        #expect(asset.aux.isEmpty && !asset.resources.contains { $0.role == .renderedPhoto })
        #expect(try library.assetIDs(matching: depthQuery).isEmpty)
        try CatalogChecks.expectSummaryAgrees(library)
        try CatalogChecks.expectSummaryAgrees(other)
    }

    /// An attach to a Live Photo whose original is current makes a new version of the
    /// pair: the new still and a movie of its own share a new identifier, so an export
    /// holds two pairs (originals, version) and never three files of one identifier.
    @Test func anAttachToALivePhotoGivesBothHalvesAnIdentifierOfTheirOwn() throws {
        let scratch = try ScratchDirectory()
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let files = ["apple-live-photo/IMG_4394.HEIC", "apple-live-photo/IMG_4394.mov"].map(Media.path)
        _ = try Importer(library: library).run(paths: files)
        let id = try library.findAsset(files[0])
        // A matte in the photo's displayed shape (3:4): a ramp.
        var ramp = PixelBuffer<UInt8>(width: 576, height: 768, channels: 1)
        for i in ramp.components.indices { ramp.components[i] = UInt8(i / 576 / 3) }
        let matte = scratch.url.appendingPathComponent("matte.png")
        try Data(try PNGCodec.encode(.eight(ramp))).write(to: matte)
        _ = try library.attachAuxiliaryImage(to: id, type: .portraitEffectsMatte, from: matte.path, options: .init())
        let asset = try library.describe([id])[0]
        #expect(asset.resources.contains { $0.role == .renderedVideo }, "the version has a movie")
        #expect(try library.verify(quick: false).sound)
        let out = try scratch.subdirectory("out")
        let exported = try Exporter.export(asset, from: library, to: out, originalOnly: false)
        func identifier(_ name: String) throws -> String {
            let path = out.appendingPathComponent(name).path
            let tag = name.lowercased().hasSuffix(".mov") ? "-ContentIdentifier" : "-MediaGroupUUID"
            return try run("exiftool", ["-s3", tag, path]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(exported.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted()
            == ["IMG_4394.HEIC", "IMG_4394.camlib.json", "IMG_4394.mov", "IMG_E4394.heic", "IMG_E4394.mov"])
        let (original, originalMovie) = (try identifier("IMG_4394.HEIC"), try identifier("IMG_4394.mov"))
        let (version, versionMovie) = (try identifier("IMG_E4394.heic"), try identifier("IMG_E4394.mov"))
        #expect(original == "ED2A2552-C906-486E-9DA5-17DABDF672A7" && originalMovie == original)
        #expect(version.count == original.count && version != original && versionMovie == version)
        // The version's movie is the original's, but for its identifier.
        let (a, b) = (try [UInt8](Data(contentsOf: out.appendingPathComponent("IMG_4394.mov"))), try [UInt8](Data(contentsOf: out.appendingPathComponent("IMG_E4394.mov"))))
        #expect(a.count == b.count && zip(a, b).filter { $0 != $1 }.count <= 36)
    }
}
