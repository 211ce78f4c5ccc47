import Codecs
import Containers
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// Auxiliary images and Motion Photo movies found on import, against MANIFEST.json (what
/// exiftool and pillow-heif found) and against heif-dec's own extraction.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxiliaryImageImportTests {
    /// pillow-heif's view in the manifest: "depth=['480x640'] aux=[apple:2019:aux:x=1158x1544, …]",
    /// sizes with irot applied. Returns (urn, "WxH" or "ERR…").
    static func manifestHEIFAux(_ verified: String) -> [(urn: String, size: String)] {
        var out: [(String, String)] = []
        if let depth = verified.range(of: "depth=[") {
            let list = verified[depth.upperBound...].prefix { $0 != "]" }
            for size in list.split(separator: ",") {
                out.append(("urn:mpeg:hevc:2015:auxid:2", size.trimmingCharacters(in: CharacterSet(charactersIn: "' "))))
            }
        }
        if let aux = verified.range(of: " aux=[") {
            let list = verified[aux.upperBound...].prefix { $0 != "]" }
            for item in list.split(separator: ",") {
                let parts = item.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { continue }
                let name = parts[0]
                let urn =
                    name.hasPrefix("apple2023:")
                    ? "tag:apple.com,2023:photo:aux:" + name.dropFirst("apple2023:".count)
                    : "urn:com:" + name.replacingOccurrences(of: "apple:", with: "apple:photo:")
                out.append((urn, parts[1]))
            }
        }
        return out
    }

    @Test(arguments: [
        "apple-portrait-heic/heic_depth_data.heic", "apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC",
        "apple-portrait-heic/pug.heic", "apple-portrait-heic/IMG_4076.HEIC", "apple-live-photo/IMG_3582.HEIC",
    ])
    func everyHEIFAuxItemOfTheManifestIsFoundAtItsDisplayedSize(file: String) throws {
        let corpus = try CorpusLibrary.shared()
        let expected = Self.manifestHEIFAux(try #require(try Media.manifest()[file]).verified)
        #expect(!expected.isEmpty)
        let aux = try corpus.asset(file).aux
        #expect(aux.count == expected.count, "\(file): \(aux.map(\.urn))")
        for (urn, size) in expected {
            let found = try #require(aux.first { $0.urn == urn }, "\(file): no \(urn)")
            if size.hasPrefix("ERR") {
                // pillow-heif refuses 10-bit items; camlib extracts them as 16-bit PNGs.
                #expect(found.bitDepth == 10 && found.path != nil)
            } else {
                #expect("\(found.width ?? 0)x\(found.height ?? 0)" == size, "\(file) \(urn)")
                #expect(found.path != nil, "\(file) \(urn): \(found.problem ?? "")")
            }
        }
    }

    @Test func heicDepthDataHasDisparityFiveMattesAndAGainMap() throws {
        let aux = try CorpusLibrary.shared().asset("apple-portrait-heic/heic_depth_data.heic").aux
        #expect(Set(aux.map(\.type)) == [.disparity, .portraitEffectsMatte, .skinMatte, .hairMatte, .teethMatte, .glassesMatte, .hdrGainMap])
        let disparity = try #require(aux.first { $0.type == .disparity })
        #expect(disparity.width == 480 && disparity.height == 640 && disparity.bitDepth == 8)
        // apdi: FloatMinValue 0.508301, FloatMaxValue 3.767578, in 1/m.
        #expect(disparity.encoding?.floatMin == 0.508301 && disparity.encoding?.floatMax == 3.767578)
        #expect(disparity.encoding?.units == "1/m" && disparity.encoding?.intMax == 255)
        #expect(disparity.encoding?.properties["depthData:Quality"] == "high")
    }

    @Test func mattesOfTheRotatedHEICComeOutUpright() throws {
        // IMG_8606: primary irot 270, displayed 3024x4032; its mattes 1512x2016.
        let aux = try CorpusLibrary.shared().asset("apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC").aux
        for type in [AuxiliaryImageType.portraitEffectsMatte, .skinMatte, .skyMatte] {
            let matte = try #require(aux.first { $0.type == type })
            #expect(matte.width == 1512 && matte.height == 2016, "\(type)")
            let (samples, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: matte.path!))))
            #expect(samples.width == 1512 && samples.height == 2016 && samples.channels == 1)
        }
    }

    @Test func extractedPixelsEqualHeifDecsOwn() throws {
        // heif-dec (libheif's tool, a separate decoder path) writes each aux image as PNG,
        // gray as RGB; camlib's PNGs must hold the same samples, in the same orientation.
        let corpus = try CorpusLibrary.shared()
        let scratch = try ScratchDirectory()
        for file in ["apple-portrait-heic/heic_depth_data.heic", "apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC"] {
            let out = scratch.url.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent + ".png").path
            let result = try run("heif-dec", ["--with-aux", "--no-colons", Media.path(file), out])
            #expect(result.status == 0, "\(result.stderr)")
            for aux in try corpus.asset(file).aux where aux.bitDepth == 8 {
                let suffix = aux.urn == "urn:mpeg:hevc:2015:auxid:2" ? "depth" : aux.urn!.replacingOccurrences(of: ":", with: "_")
                let theirs = out.replacingOccurrences(of: ".png", with: "-\(suffix).png")
                let (reference, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: theirs))))
                let (mine, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: aux.path!))))
                guard case .eight(let r) = reference, case .eight(let m) = mine else {
                    Issue.record("\(file) \(aux.type): not 8-bit")
                    continue
                }
                #expect(r.width == m.width && r.height == m.height, "\(file) \(aux.type)")
                let firstChannel = stride(from: 0, to: r.components.count, by: r.channels).map { r.components[$0] }
                #expect(firstChannel == m.components, "\(file) \(aux.type): samples differ from heif-dec")
            }
        }
    }

    @Test func tenBitImagesAreFullRangePNGsWithTheSamplesHeifDecFinds() throws {
        // IMG_8606's style delta map and linear thumbnail are 10-bit. Written unscaled they
        // used 1/64 of the 16-bit range and looked black in every viewer.
        let file = "apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC"
        let scratch = try ScratchDirectory()
        let out = scratch.url.appendingPathComponent("o.png").path
        let result = try run("heif-dec", ["--with-aux", "--no-colons", Media.path(file), out])
        #expect(result.status == 0, "\(result.stderr)")
        let tenBit = try CorpusLibrary.shared().asset(file).aux.filter { $0.bitDepth == 10 }
        #expect(tenBit.count == 2)
        for aux in tenBit {
            let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(aux.path))))
            #expect(PNGFile.significantBits(png) == 10, "\(aux.urn ?? "")")
            let (mine, _) = try PNGCodec.decodeSamples(png)
            let theirs = out.replacingOccurrences(of: ".png", with: "-" + aux.urn!.replacingOccurrences(of: ":", with: "_") + ".png")
            let (reference, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: theirs))))
            guard case .sixteen(let m, 10) = mine, case .sixteen(let r, _) = reference else {
                Issue.record("\(aux.urn ?? ""): \(mine.bitDepth)-bit, heif-dec's \(reference.bitDepth)-bit")
                continue
            }
            // heif-dec writes the full 16-bit range without sBIT: its top ten bits are the sample.
            #expect(m.width == r.width && m.height == r.height && m.channels == r.channels)
            #expect(m.components == r.components.map { $0 >> 6 }, "\(aux.urn ?? ""): samples differ from heif-dec")
            // As stored, read by FFmpeg's PNG decoder (which ignores sBIT): the full range,
            // each sample in the top ten bits.
            let rawPath = scratch.url.appendingPathComponent("raw").path
            let raw = try run("ffmpeg", ["-v", "error", "-y", "-i", aux.path!, "-f", "rawvideo", "-pix_fmt", m.channels == 1 ? "gray16le" : "rgb48le", rawPath])
            #expect(raw.status == 0, "\(raw.stderr)")
            let stored = try Data(contentsOf: URL(fileURLWithPath: rawPath)).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            #expect(stored.count == m.components.count)
            #expect(stored.map { $0 >> 6 } == m.components && (stored.max() ?? 0) > 1023, "\(aux.urn ?? ""): stored unscaled")
        }
    }

    @Test func extractedPNGsSayWhatTheyAreAndWhereTheyCameFrom() throws {
        let file = "apple-portrait-heic/heic_depth_data.heic"
        let aux = try CorpusLibrary.shared().asset(file).aux
        let disparity = try #require(aux.first { $0.type == .disparity })
        let texts = PNGFile.texts([UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(disparity.path)))))
        #expect(texts["Title"] == "disparity from heic_depth_data.heic")
        #expect(texts["Source"] == "heic_depth_data.heic \(disparity.source)")
        #expect(texts["Software"] == "camlib")
        // The meaning, the range as people write it, the depth and the URN in words.
        #expect(texts["Description"] == "disparity; 0.508–3.77 1/m; uniformDisparity; 8-bit; urn:mpeg:hevc:2015:auxid:2", "\(texts)")
        let json = try #require(texts["camlib:aux"]).data(using: .utf8)!
        let facts = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(facts["type"] as? String == "disparity" && facts["urn"] as? String == "urn:mpeg:hevc:2015:auxid:2")
        #expect(facts["file"] as? String == "heic_depth_data.heic" && facts["bitDepth"] as? Int == 8)
        let encoding = try #require(facts["encoding"] as? [String: Any])
        #expect(encoding["floatMin"] as? Double == 0.508301 && encoding["units"] as? String == "1/m")
        // Every aux PNG of the corpus says so, gain maps and mattes included.
        for file in ["apple-portrait-heic/IMG_8606_rotate_90_cw_contains_text.HEIC", "android-depth-motion/pixel_8.jpg"] {
            for image in try CorpusLibrary.shared().asset(file).aux {
                let texts = PNGFile.texts([UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(image.path)))))
                #expect(texts["Title"]?.hasSuffix(" from " + URL(fileURLWithPath: file).lastPathComponent) == true, "\(file) \(image.source)")
                #expect(texts["camlib:aux"]?.contains("\"source\":\"\(image.source)\"") == true, "\(file) \(image.source)")
            }
        }
    }

    @Test func rangesReadAsPeopleWriteThem() {
        #expect(AuxiliaryEncoding.decimal(1.2000000476837158) == "1.2")
        #expect(AuxiliaryEncoding.decimal(4.0) == "4" && AuxiliaryEncoding.decimal(0) == "0")
        #expect(AuxiliaryEncoding.decimal(390.539306640625) == "391" && AuxiliaryEncoding.decimal(12.423587799072266) == "12.4")
        #expect(AuxiliaryEncoding.decimal(0.27799999713897705) == "0.278" && AuxiliaryEncoding.decimal(-0.5) == "-0.5")
        var e = AuxiliaryEncoding()
        (e.floatMin, e.floatMax, e.units) = (1.2000000476837158, 4.0, "m")
        #expect(e.rangeText == "1.2–4 m")
        var g = AuxiliaryEncoding()
        (g.near, g.far) = (12.423587799072266, 390.539306640625)
        #expect(g.rangeText == "near 12.4–far 391 (units not stated)")
        g.units = "mm"
        #expect(g.rangeText == "near 12.4–far 391 mm")
    }

    @Test(arguments: ["apple-portrait-jpeg/jpeg_depth_data.jpg", "apple-portrait-jpeg/image-with-depth.jpg"])
    func portraitJPEGsMPFImagesAreFoundWithTheirApdiTypes(file: String) throws {
        // Manifest: "MPImage2 27698B 480x640 apdi:AuxiliaryImageType=disparity SubType=- | MPImage3 …".
        let verified = try #require(try Media.manifest()[file]).verified
        let aux = try CorpusLibrary.shared().asset(file).aux
        let entries = verified.components(separatedBy: "MPImage").dropFirst()
        #expect(aux.count == entries.count)
        for entry in entries {
            let words = entry.split(separator: " ").map(String.init)
            let number = words[0]
            let size = words[2]
            let apdiType = words.first { $0.hasPrefix("apdi:AuxiliaryImageType=") }?.split(separator: "=").last.map(String.init)
            let sub = words.first { $0.hasPrefix("SubType=") }?.split(separator: "=").last.map(String.init)
            let expected = AuxiliaryImageType(urn: nil, apdiType: apdiType, apdiSubType: sub == "-" ? nil : sub)
            let found = try #require(aux.first { $0.source == "mpf:\(number)" }, "\(file) MPImage\(number)")
            #expect(found.type == expected)
            #expect("\(found.width ?? 0)x\(found.height ?? 0)" == size)
            #expect(found.path != nil)
        }
    }

    @Test(arguments: ["android-depth-motion/xmp depth map.jpg", "android-depth-motion/table.jpg"])
    func googleDepthKeepsItsRangeParameters(file: String) throws {
        let verified = try #require(try Media.manifest()[file]).verified
        func fact(_ name: String) -> String? {
            guard let r = verified.range(of: "XMP-GDepth:\(name)=") else { return nil }
            return String(verified[r.upperBound...].prefix { $0 != ";" })
        }
        let asset = try CorpusLibrary.shared().asset(file)
        let depth = try #require(asset.aux.first { $0.source == "xmp:GDepth" })
        #expect(depth.type == .depth)
        #expect(depth.encoding?.format == fact("Format"))
        #expect(depth.encoding?.near == fact("Near").flatMap(Double.init))
        #expect(depth.encoding?.far == fact("Far").flatMap(Double.init))
        #expect(depth.encoding?.toMetres?.contains("far * near") == true)
        #expect(depth.width != nil && depth.path != nil)
        // One channel, like every other depth map: the file's PNG is RGB with three equal
        // channels, and the extracted one holds the same samples in one.
        let (mine, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: depth.path!))))
        #expect(mine.channels == 1 && depth.channels == 1)
        let scratch = try ScratchDirectory()
        let embedded = scratch.file("gdepth.png")
        let dump = try run("sh", ["-c", "exiftool -b -XMP-GDepth:DepthImage \"$1\" > \"$2\"", "sh", Media.path(file), embedded])
        #expect(dump.status == 0, "\(dump.stderr)")
        let (theirs, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: embedded))))
        guard case .eight(let t) = theirs, case .eight(let m) = mine else {
            Issue.record("not 8-bit")
            return
        }
        #expect(t.channels == 3 && stride(from: 0, to: t.components.count, by: 3).map { t.components[$0] } == m.components)
    }

    @Test func ultraHDRGainMapComesFromMPF() throws {
        let aux = try CorpusLibrary.shared().asset("android-depth-motion/pixel_8.jpg").aux
        #expect(aux.count == 1)
        #expect(aux.first?.type == .hdrGainMap && aux.first?.width == 744 && aux.first?.height == 988)
    }

    @Test(arguments: [
        "android-depth-motion/motion_photo.jpeg", "android-depth-motion/motion_photo.heic",
        "android-depth-motion/microvideo_xmp.jpeg", "android-depth-motion/samsung-one-ui-6.heic",
    ])
    func motionPhotoMoviesBecomePlayablePairedVideos(file: String) throws {
        let corpus = try CorpusLibrary.shared()
        let asset = try corpus.asset(file)
        #expect(asset.kind == .motion)
        let movie = try #require(asset.resources.first { $0.role == .pairedVideo })
        let probe = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", movie.path])
        #expect(probe.status == 0, "\(probe.stderr)")
        // "186" or "42," (ffprobe adds a field for side data).
        let frames = Int(probe.stdout.prefix { $0.isNumber }) ?? 0
        #expect(frames > 0, "\(file): no frames decoded")
        #expect(asset.duration ?? 0 > 0)
        // The original is untouched.
        let original = try #require(asset.resources.first { $0.role == .photo })
        #expect(try FileReading.sha256(of: original.path) == (try Media.manifest()[file]?.sha256 ?? original.sha256))
        #expect(try FileReading.sha256(of: movie.path) == movie.sha256)
    }

    @Test func aMoviesNoFixPlaceholderIsNoLocationButARealOneIs() throws {
        // samsung-one-ui-6.heic's movie says "+00.0000+000.0000/" (ffprobe shows it): no fix.
        let corpus = try CorpusLibrary.shared()
        let samsung = try corpus.asset("android-depth-motion/samsung-one-ui-6.heic")
        let movie = try #require(samsung.resources.first { $0.role == .pairedVideo })
        let tags = try run("ffprobe", ["-v", "error", "-show_entries", "format_tags=location", "-of", "csv=p=0", movie.path])
        #expect(tags.stdout.contains("+00.0000+000.0000"), "\(tags.stdout)")
        #expect(samsung.location == nil)
        // microvideo_xmp.jpeg's still has a real place (its EXIF GPS), which stays.
        let located = try corpus.asset("android-depth-motion/microvideo_xmp.jpeg").location
        #expect(located.map { abs($0.latitude - 43.473919) < 1e-6 && abs($0.longitude + 80.536069) < 1e-5 } == true)
        #expect(GeoLocation(iso6709: "+00.0000+000.0000/")?.isNoFixPlaceholder == true)
        #expect(GeoLocation(iso6709: "+00.0001+000.0000/")?.isNoFixPlaceholder == false)
    }

    @Test func aJPEGWithAnUndeclaredAppendedMovieStaysAPhotoWithAWarning() throws {
        let corpus = try CorpusLibrary.shared()
        #expect(try corpus.asset("android-depth-motion/image-isom-avc1.jpg").kind == .photo)
        #expect(corpus.report.warnings.contains { $0.path.hasSuffix("image-isom-avc1.jpg") && $0.message.contains("no Motion Photo metadata") })
    }

    @Test func hasFiltersFindAssetsByWhatTheyCarry() throws {
        let corpus = try CorpusLibrary.shared()
        func names(_ feature: String) throws -> Set<String> {
            var query = AssetQuery()
            query.has = [try #require(AssetQuery.Feature(name: feature))]
            return Set(try corpus.library.describe(try corpus.library.assetIDs(matching: query)).compactMap { $0.primaryOriginal?.originalName })
        }
        #expect(try names("motion") == ["motion_photo.jpeg", "motion_photo.heic", "microvideo_xmp.jpeg", "samsung-one-ui-6.heic"])
        #expect(try names("sky-matte") == ["IMG_8606_rotate_90_cw_contains_text.HEIC"])
        #expect(try names("portrait-matte") == ["heic_depth_data.heic", "IMG_8606_rotate_90_cw_contains_text.HEIC", "jpeg_depth_data.jpg"])
        let depth = try names("depth")
        #expect(depth.isSuperset(of: ["heic_depth_data.heic", "pug.heic", "jpeg_depth_data.jpg", "table.jpg", "xmp depth map.jpg"]))
        #expect(try names("disparity").isSubset(of: depth))
        #expect(!depth.contains("IMG_8606_rotate_90_cw_contains_text.HEIC"))
    }
}

/// Orientation and bad aux data, on copies of corpus files changed with exiftool or cut short.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AuxiliaryImageEdgeTests {
    @Test func mpfImagesTurnWithThePhotosEXIFOrientation() throws {
        let scratch = try ScratchDirectory()
        let copy = scratch.url.appendingPathComponent("rotated.jpg").path
        try FileManager.default.copyItem(atPath: Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg"), toPath: copy)
        // exiftool rewrites the MPF offsets it moves.
        let set = try run("exiftool", ["-q", "-overwrite_original", "-n", "-IFD0:Orientation=6", copy])
        #expect(set.status == 0, "\(set.stderr)")
        let upright = try LooseFileAuxiliaryImages.describe(path: Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg"))
        let turned = try LooseFileAuxiliaryImages.describe(path: copy)
        #expect(turned.aux.map(\.type) == upright.aux.map(\.type))
        for (a, b) in zip(upright.aux, turned.aux) {
            #expect(a.width == b.height && a.height == b.width, "\(a.type)")
        }
        let out = scratch.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let results = try LooseFileAuxiliaryImages.extract(path: copy, types: [.disparity], to: out, overwrite: false)
        let (samples, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: try #require(results.first?.path)))))
        let original = try LooseFileAuxiliaryImages.extract(
            path: Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg"), types: [.disparity],
            to: try scratch.subdirectory("upright"), overwrite: false)
        let (reference, _) = try PNGCodec.decodeSamples([UInt8](Data(contentsOf: URL(fileURLWithPath: try #require(original.first?.path)))))
        #expect(samples == reference.applying(.rotate90CW))
    }

    @Test func truncatedMPFDataIsAProblemNotAFailure() throws {
        let scratch = try ScratchDirectory()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path("apple-portrait-jpeg/jpeg_depth_data.jpg"))))
        // Keep the primary (EOI at 945672) and half of the first MPF image.
        let cut = scratch.url.appendingPathComponent("cut.jpg")
        try Data(bytes.prefix(945672 + 10000)).write(to: cut)
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: [cut.path])
        #expect(report.errors.isEmpty && report.imported == 1)
        let asset = try library.describe([try library.findAsset(cut.path)])[0]
        #expect(asset.kind == .photo)
        #expect(asset.aux.count == 2)
        #expect(asset.aux.allSatisfy { $0.path == nil && $0.problem?.contains("runs past the end") == true })
    }

    @Test func anUndecodableHEIFItemIsAProblemNotAFailure() throws {
        // heic_depth_data.heic with its disparity item's data pointing past the end.
        let source = Media.path("apple-portrait-heic/heic_depth_data.heic")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: source)))
        var meta = try HEIFMetaBox(file: bytes)
        let i = try #require(meta.locations.firstIndex { $0.itemID == 49 })
        meta.locations[i].extents[0].offset = UInt64(bytes.count + 1000)
        let end = meta.originalRange.upperBound
        let draft = try meta.serialized(shiftingOffsetsFrom: end, by: 0)
        let rewritten = try meta.serialized(shiftingOffsetsFrom: end, by: draft.count - meta.originalRange.count)
        let scratch = try ScratchDirectory()
        let broken = scratch.url.appendingPathComponent("broken-depth.heic")
        try Data(Array(bytes[..<meta.originalRange.lowerBound]) + rewritten + Array(bytes[end...])).write(to: broken)

        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: [broken.path])
        #expect(report.errors.isEmpty && report.imported == 1)
        // Import reads the item's facts, not its data: the damage shows when its PNG is
        // first asked for, as an error naming the asset, the file and the item, said once.
        let id = try library.findAsset(broken.path)
        #expect(try library.describe([id])[0].aux.allSatisfy { $0.path != nil })
        let failed = try library.makeAuxiliaryPNGs(of: id)
        #expect(failed.count == 1)
        let said = "\(try #require(failed.first))"
        #expect(said.hasPrefix("asset \(id) (broken-depth.heic): ") && said.contains("heif:item/49") && said.contains("cannot be decoded"), "\(said)")
        // Said once: from then on the row says why, and it is not tried again.
        #expect(try library.makeAuxiliaryPNGs(of: id).isEmpty)
        let aux = try library.describe([id])[0].aux
        #expect(aux.count == 7)
        let disparity = try #require(aux.first { $0.source == "heif:item/49" })
        #expect(disparity.path == nil && disparity.problem?.isEmpty == false)
        #expect(aux.filter { $0.path != nil }.count == 6)
    }

    @Test func brokenBase64DepthIsAProblemNotAFailure() throws {
        // A small JPEG with GDepth XMP whose Data is not base64.
        var jpeg = try JPEGCodec.encode(PixelBuffer<UInt8>(width: 16, height: 8, channels: 3))
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:GDepth="http://ns.google.com/photos/1.0/depthmap/"
             GDepth:Format="RangeLinear" GDepth:Near="1.5" GDepth:Far="9" GDepth:Mime="image/png" GDepth:Data="@@@ not base64 @@@"/>
            </rdf:RDF></x:xmpmeta>
            """
        let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload, at: 2)
        let scratch = try ScratchDirectory()
        let file = scratch.url.appendingPathComponent("gdepth.jpg")
        try Data(jpeg).write(to: file)
        let found = try LooseFileAuxiliaryImages.describe(path: file.path)
        let depth = try #require(found.aux.first)
        #expect(depth.type == .depth && depth.encoding?.near == 1.5 && depth.encoding?.far == 9)
        #expect(depth.problem == "GDepth:Data is not valid base64")
        let library = try PhotoLibrary(root: scratch.url.appendingPathComponent("library"), mode: .create)
        let report = try Importer(library: library).run(paths: [file.path])
        #expect(report.errors.isEmpty && report.imported == 1)
    }
}
