import Codecs
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// Apple Photos' edits turned into camlib's steps: the corpus's two `.AAE` sidecars, what
/// cannot be reproduced named, and IMG_3582's render measured against Apple's own.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct AppleRecipeTests {
    static func recipe(_ aae: String) throws -> AppleRecipe {
        let adjustment = try AppleAdjustment(plist: [UInt8](Data(contentsOf: URL(fileURLWithPath: Media.path(aae)))))
        return try AppleRecipe(json: try #require(adjustment.decodedJSON))
    }

    @Test func theCorpusEditsBecomeCamlibSteps() throws {
        let magnolia = try Self.recipe("apple-live-photo/IMG_3582.AAE")
        #expect(magnolia.steps.map(\.description) == ["depth:aperture=2.8,x=0.4838,y=0.435", "mono", "contrast:amount=0.3"])
        #expect(magnolia.unreproduced.isEmpty)
        // A square crop of a 4032x3024 master, 781 pixels in; Light and Color; Noir.
        let plane = try Self.recipe("apple-misc/IMG_4120.AAE")
        #expect(plane.steps.map(\.description) == [
            "crop:aspect=0,height=1,width=0.75,x=0.1937,y=0", "shadows:amount=0.1704", "vibrance:amount=0.0549", "noir:contrast=1.2",
        ])
        #expect(plane.unreproduced.isEmpty)
    }

    @Test func whatCannotBeReproducedIsNamedAndDisabledAdjustmentsAreLeftOut() throws {
        let json = """
            {"metadata":{"masterWidth":4000,"masterHeight":3000,"orientation":1},"adjustments":[
             {"identifier":"Vignette","enabled":true,"settings":{"inputIntensity":0.5}},
             {"identifier":"WhiteBalance","enabled":false,"settings":{"warmth":0.2}},
             {"identifier":"Crop","enabled":true,"settings":{"xOrigin":0,"yOrigin":0,"width":2000,"height":3000,"straightenAngle":2.5}},
             {"identifier":"Effect","enabled":true,"settings":{"effectName":"3DVivid"}},
             {"identifier":"SmartTone","enabled":true,"settings":{"inputLight":0,"offsetExposure":0.5,"offsetHighlights":-0.2}},
             {"identifier":"Crop","enabled":true,"settings":{"xOrigin":1000,"yOrigin":500,"width":2000,"height":1500}}]}
            """
        let recipe = try AppleRecipe(json: json)
        #expect(recipe.unreproduced == ["Vignette", "Crop with straightenAngle", "Effect 3DVivid"])
        // The crop's origin is at the bottom left: 500 up from the bottom of 3000 is 1000 down from the top.
        #expect(recipe.steps.map(\.description) == [
            "crop:aspect=0,height=0.5,width=0.5,x=0.25,y=0.3333", "exposure:ev=0.5", "highlights:amount=-0.2",
        ])
        #expect(throws: MediaAnalyzer.Failure.self) { try AppleRecipe(json: "{}") }
    }

    /// SSIM of two pictures' luma (8x8 windows, the usual constants), as a number to print.
    static func ssim(_ a: PixelBuffer<UInt8>, _ b: PixelBuffer<UInt8>) -> Double {
        func luma(_ p: PixelBuffer<UInt8>, _ x: Int, _ y: Int) -> Double {
            let o = (y * p.width + x) * 3
            return 0.299 * Double(p.components[o]) + 0.587 * Double(p.components[o + 1]) + 0.114 * Double(p.components[o + 2])
        }
        let (c1, c2) = (6.5025, 58.5225)
        var (total, windows) = (0.0, 0)
        for wy in stride(from: 0, to: min(a.height, b.height) - 7, by: 4) {
            for wx in stride(from: 0, to: min(a.width, b.width) - 7, by: 4) {
                var (sa, sb, saa, sbb, sab) = (0.0, 0.0, 0.0, 0.0, 0.0)
                for y in wy..<(wy + 8) {
                    for x in wx..<(wx + 8) {
                        let (p, q) = (luma(a, x, y), luma(b, x, y))
                        (sa, sb, saa, sbb, sab) = (sa + p, sb + q, saa + p * p, sbb + q * q, sab + p * q)
                    }
                }
                let (ma, mb) = (sa / 64, sb / 64)
                let (va, vb, cov) = (saa / 64 - ma * ma, sbb / 64 - mb * mb, sab / 64 - ma * mb)
                total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
                windows += 1
            }
        }
        return total / Double(max(1, windows))
    }

    @Test func imgThreeFiveEightTwoRendersAsApplesOwnEditDoes() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov", "apple-live-photo/IMG_3582.AAE"]
        let library = try EditTests.library(files, in: scratch)
        let id = try library.findAsset(Media.path(files[0]))
        let apple = try #require(try library.catalog.read { try AdjustmentRecord.current(of: id, $0) })
        #expect(apple.formatIdentifier == "com.apple.photo")
        let result = try library.edit(asset: id, steps: [], extending: true)
        #expect(result.recipe.steps.map(\.name) == ["depth", "mono", "contrast"])
        #expect(result.renders.count == 2)
        let current = try #require(try library.catalog.read { try AdjustmentRecord.current(of: id, $0) })
        #expect(current.formatIdentifier == CamlibAdjustment.formatIdentifier && current.extendsId == apple.id)
        let ours = try PixelScaler.scaledToFit(try HEIFFile(path: result.renders[0]).primaryImage().decodeRGB(), maxSide: 1024)
        let theirs = try PixelScaler.scaledToFit(
            try HEIFFile(path: Media.path("apple-live-photo/IMG_3582_edited.heic")).primaryImage().decodeRGB(), maxSide: 1024)
        let original = try PixelScaler.scaledToFit(try HEIFFile(path: Media.path(files[0])).primaryImage().decodeRGB(), maxSide: 1024)
        #expect(ours.width == theirs.width && ours.height == theirs.height)
        let (score, baseline) = (Self.ssim(ours, theirs), Self.ssim(original, theirs))
        print("AppleRecipeTests: SSIM of camlib's render of IMG_3582's Apple edit against Apple's: \(score) (the original against Apple's: \(baseline))")
        #expect(score >= 0.9 && score > baseline, "SSIM \(score), original \(baseline)")
    }

    @Test func anAppleEditWithStepsCamlibCannotReproduceStaysApples() throws {
        let scratch = try ScratchDirectory()
        let folder = try scratch.subdirectory("phone").path
        try FileManager.default.copyItem(atPath: Media.path("orientation/Landscape_1.jpg"), toPath: folder + "/IMG_0001.JPG")
        let json = #"{"metadata":{"masterWidth":1800,"masterHeight":1200,"orientation":1},"adjustments":[{"identifier":"Retouch","enabled":true,"settings":{}},{"identifier":"SmartBlackAndWhite","enabled":true,"settings":{}}]}"#
        let script = """
            import plistlib, sys, zlib
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = c.compress(sys.argv[2].encode()) + c.flush()
            plistlib.dump({"adjustmentFormatIdentifier": "com.apple.photo", "adjustmentFormatVersion": "1.4",
                           "adjustmentBaseVersion": 0, "adjustmentData": data}, open(sys.argv[1], "wb"))
            """
        #expect(try run("python3", ["-c", script, folder + "/IMG_0001.AAE", json]).status == 0)
        let library = try PhotoLibrary.create(at: scratch.url.appendingPathComponent("library"))
        let report = try Importer(library: library).run(paths: [folder])
        #expect(report.errors.isEmpty, "\(report.errors)")
        let id = try library.findAsset(folder + "/IMG_0001.JPG")
        let before = try library.catalog.read { try AdjustmentRecord.current(of: id, $0) }
        #expect(before?.formatIdentifier == "com.apple.photo")
        do {
            _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "vignette")], extending: true)
            Issue.record("an edit camlib cannot reproduce was resumed")
        } catch {
            #expect("\(error)".contains("cannot reproduce its Retouch, so it stays Apple's render"), "\(error)")
        }
        #expect(try library.catalog.read { try AdjustmentRecord.current(of: id, $0) }?.id == before?.id)
    }
}
