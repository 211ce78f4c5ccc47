import Codecs
import Containers
import Filters
import Foundation
import Imaging

/// What an edit looks like before any encoder touches it: the filtered still, or each
/// filtered movie frame (filtered as the renderers filter them: as stored when the recipe
/// allows, and a comic decided from the same working-size summary the render is, drawn
/// as RGB where the render draws Y'CbCr), in display orientation, as lossless PNG. The reference that
/// bench/edit.py measures renders against (SSIM), so the quality a render's rate control
/// gives up is a number.
public enum RenderReference {
    /// Writes `still.png` (a photo) or `frame-00001.png`, … (a movie's frames) into
    /// `folder`; returns the files written.
    public static func write(path: String, recipe: FilterRecipe, to folder: URL) throws -> [String] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let head = try FileReading.prefix(of: path, count: 64)
        // The depth step reads the photo's depth, as the render does.
        var depth: DepthField?
        if recipe.needsDepth, MediaFormat.sniff(head)?.isStill == true {
            depth = try DepthField.required(by: [UInt8](Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)))
        }
        switch MediaFormat.sniff(head) {
        case .heif?, .avif?:
            let primary = try HEIFFile(path: path).primaryImage()
            try StillRenderer.checkSize(width: primary.width, height: primary.height)
            if MediaFormat.sniff(head) == .heif, let rendering = try StillRenderer.summarizedFromYCbCr(primary, recipe: recipe) {
                var drawn = PixelBuffer<UInt8>(width: rendering.width, height: rendering.height, channels: 3)
                rendering.draw(&drawn, x: 0, y: 0)
                return [try png(drawn.applying(primary.orientation), folder.appendingPathComponent("still.png"))]
            }
            let filtered = try StillRenderer.filteredAsStored(primary, recipe: recipe, depth: depth)
            return [try png(filtered.applying(primary.orientation), folder.appendingPathComponent("still.png"))]
        case .jpeg?:
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let (filtered, orientation) = try StillRenderer.filteredJPEG(bytes, segments: try JPEGSegments(parsing: bytes), recipe: recipe, depth: depth)
            return [try png(filtered.applying(orientation), folder.appendingPathComponent("still.png"))]
        case .png?:
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let (filtered, _, orientation) = try StillRenderer.filteredPNG(bytes, chunks: try PNGChunks(parsing: bytes), recipe: recipe)
            return [try png(filtered.applying(orientation), folder.appendingPathComponent("still.png"))]
        default:
            let reader = try MovieFrameReader(path: path)
            var written: [String] = []
            // The working size when the render draws each frame from its average alone.
            let averaged: (width: Int, height: Int)?
            if case .fromAverageToYCbCr(let size, _) = MovieRenderer.drawing(recipe) { averaged = size(reader.width, reader.height) } else { averaged = nil }
            func next() throws -> PixelBuffer<UInt8>? {
                guard let averaged else { return try reader.next().map { recipe.apply(toStored: $0.pixels, shownIn: reader.orientation) } }
                guard let frame = try reader.next(averagedTo: averaged.width, averaged.height) else { return nil }
                let rendering = RegionRendering(recipe: recipe, width: reader.width, height: reader.height)!
                rendering.summarize(averaged: frame.pixels)
                var drawn = PixelBuffer<UInt8>(width: reader.width, height: reader.height, channels: 3)
                rendering.draw(&drawn, x: 0, y: 0)
                return drawn
            }
            while let filtered = try next() {
                let name = String(format: "frame-%05d.png", written.count + 1)
                written.append(try png(filtered.applying(reader.orientation), folder.appendingPathComponent(name)))
            }
            return written
        }
    }

    static func png(_ pixels: PixelBuffer<UInt8>, _ url: URL) throws -> String {
        try AtomicFile.write(try PNGCodec.encode(.eight(pixels), compressionLevel: 1), to: url, overwrite: true)
        return url.path
    }
}
