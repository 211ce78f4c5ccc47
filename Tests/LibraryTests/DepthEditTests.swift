import Codecs
import Containers
import Filters
import Foundation
import Imaging
import Testing
import TestSupport

@testable import Library

/// The depth step rendered by `camlib edit` on real photos with each kind of depth an
/// edit reads: an iPhone Portrait HEIC (disparity and matte), a Portrait JPEG (MPF
/// disparity and matte) and an Android GDepth photo; refused, naming the asset and the
/// file, where there is no depth.
@Suite(.enabled(if: Media.shouldRun, Media.skipMessage))
struct DepthEditTests {
    /// A still as displayed, at most 1,024 pixels on its long side.
    static func displayed(_ path: String) throws -> PixelBuffer<UInt8> {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let full: PixelBuffer<UInt8>
        if MediaFormat.sniff(Array(bytes.prefix(64))) == .jpeg {
            let exif = try JPEGSegments(parsing: bytes).exifTIFF.flatMap { try? EXIFMetadata(tiff: $0) }
            full = try JPEGCodec.decode(bytes).pixels.applying(EXIFOrientation(exifValue: exif?.orientation ?? 1))
        } else {
            full = try HEIFFile(path: path).primaryImage().decodeRGB()
        }
        return try PixelScaler.scaledToFit(full, maxSide: 1024)
    }

    /// The photo's nearness from 0 (its far 2%) to 1 (its near 2%), read by the test at
    /// `width`×`height` (nearest sample).
    static func nearness(_ path: String, width: Int, height: Int) throws -> [Double] {
        let field = try #require(try DepthField.carried(by: [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))))
        let n = field.nearness
        let sorted = n.components.sorted()
        let lo = Double(sorted[sorted.count * 2 / 100]), hi = Double(sorted[sorted.count * 98 / 100])
        return (0..<(width * height)).map { i in
            let x = (i % width) * n.width / width, y = (i / width) * n.height / height
            return min(1, max(0, (Double(n.components[y * n.width + x]) - lo) / (hi - lo)))
        }
    }

    /// Where the photo is nearest, smoothed over a ninth of its width: a point on the subject.
    static func nearestPoint(_ near: [Double], width: Int, height: Int) -> (x: Double, y: Double) {
        let r = width / 18
        var best = (score: -1.0, x: 0, y: 0)
        for y in stride(from: r, to: height - r, by: 4) {
            for x in stride(from: r, to: width - r, by: 4) {
                var sum = 0.0
                for dy in stride(from: -r, through: r, by: 2) {
                    for dx in stride(from: -r, through: r, by: 2) { sum += near[(y + dy) * width + x + dx] }
                }
                if sum > best.score { best = (sum, x, y) }
            }
        }
        return ((Double(best.x) + 0.5) / Double(width), (Double(best.y) + 0.5) / Double(height))
    }

    static func contrast(_ p: PixelBuffer<UInt8>, where region: (Int) -> Bool) -> Double {
        var (sum, n) = (0.0, 0)
        for y in 0..<p.height {
            for x in 0..<(p.width - 1) where region(y * p.width + x) && region(y * p.width + x + 1) {
                for c in 0..<3 { sum += abs(Double(p.components[(y * p.width + x + 1) * 3 + c]) - Double(p.components[(y * p.width + x) * 3 + c])) }
                n += 3
            }
        }
        return sum / Double(max(1, n))
    }

    @Test(arguments: ["apple-portrait-heic/pug.heic", "apple-portrait-jpeg/jpeg_depth_data.jpg", "android-depth-motion/table.jpg"])
    func theFarIsBlurredAndTheFocusKept(file: String) throws {
        let scratch = try ScratchDirectory()
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let before = try Self.displayed(Media.path(file))
        let (w, h) = (before.width, before.height)
        let near = try Self.nearness(Media.path(file), width: w, height: h)
        let focus = Self.nearestPoint(near, width: w, height: h)
        let result = try library.edit(
            asset: id, steps: [try FilterStep(parsing: "depth:aperture=1.4,x=\(focus.x),y=\(focus.y)")], extending: false)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        let after = try Self.displayed(try #require(result.renders.first))
        #expect(after.width == w && after.height == h)
        let focusNearness = near[min(h - 1, Int(focus.y * Double(h))) * w + min(w - 1, Int(focus.x * Double(w)))]
        let far = { (i: Int) in near[i] < 0.1 && abs(near[i] - focusNearness) > 0.5 }
        let inFocus = { (i: Int) in abs(near[i] - focusNearness) < 0.02 }
        #expect(near.filter { $0 < 0.1 }.count > w * h / 20, "a far part to look at")
        let (farBefore, farAfter) = (Self.contrast(before, where: far), Self.contrast(after, where: far))
        #expect(farAfter < farBefore * 0.6, "\(file): far contrast \(farBefore) → \(farAfter)")
        let (focusBefore, focusAfter) = (Self.contrast(before, where: inFocus), Self.contrast(after, where: inFocus))
        #expect(focusAfter > focusBefore * 0.85, "\(file): in-focus contrast \(focusBefore) → \(focusAfter)")
    }

    @Test func aPhotoWithoutDepthIsRefusedNamingTheAssetAndTheFile() throws {
        let scratch = try ScratchDirectory()
        let file = "orientation/Landscape_1.jpg"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        do {
            _ = try library.edit(asset: id, steps: [try FilterStep(parsing: "depth")], extending: false)
            Issue.record("a photo without depth was edited")
        } catch let error as EditError {
            #expect(error.asset == id && error.file == "Landscape_1.jpg" && error.reason.contains("depth or disparity map"), "\(error)")
        }
        #expect(try library.describe([id])[0].resources.allSatisfy { $0.role != .renderedPhoto })
        // The preview says the same.
        #expect(throws: EditError.self) { try library.editPreview(asset: id, steps: [try FilterStep(parsing: "depth")]) }
    }

    @Test func aVideoIsRefused() throws {
        let scratch = try ScratchDirectory()
        let file = "apple-live-photo/IMG_4394.mov"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        #expect(throws: EditError.self) { try library.edit(asset: id, steps: [try FilterStep(parsing: "depth")], extending: false) }
    }

    /// A Live Photo's still gets the depth of field; its movie, which has no depth, keeps
    /// its frames in focus, and the edit says so.
    @Test func aLivePhotosStillIsBlurredAndItsMovieSaidToBeLeft() throws {
        let scratch = try ScratchDirectory()
        let files = ["apple-live-photo/IMG_3582.HEIC", "apple-live-photo/IMG_3582.mov"]
        let library = try EditTests.library(files, in: scratch)
        let id = try library.findAsset(Media.path(files[0]))
        let result = try library.edit(asset: id, steps: [try FilterStep(parsing: "depth:aperture=2.8,x=0.5,y=0.4")], extending: false)
        #expect(result.renders.count == 2)
        #expect(result.warnings.contains { $0.contains("Live Photo's movie has no depth map") }, "\(result.warnings)")
        let before = try Self.displayed(Media.path(files[0])), after = try Self.displayed(result.renders[0])
        #expect(Self.contrast(after, where: { _ in true }) < Self.contrast(before, where: { _ in true }), "the still is blurred")
    }

    /// The preview the gallery shows is drawn with the photo's depth, like the render.
    @Test func thePreviewIsDrawnWithTheDepth() throws {
        let scratch = try ScratchDirectory()
        let file = "apple-portrait-heic/pug.heic"
        let library = try EditTests.library([file], in: scratch)
        let id = try library.findAsset(Media.path(file))
        let plain = try JPEGCodec.decode(try library.editPreview(asset: id, steps: [])).pixels
        let blurred = try JPEGCodec.decode(try library.editPreview(asset: id, steps: [try FilterStep(parsing: "depth:aperture=1.4,x=0.55,y=0.55")])).pixels
        #expect(Self.contrast(blurred, where: { _ in true }) < Self.contrast(plain, where: { _ in true }) * 0.9)
    }
}
