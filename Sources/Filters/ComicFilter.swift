import Imaging

/// The look of Core Image's CIComicEffect: bold dark outlines from edge detection over a
/// colour halftone of dots on a posterised fill.
///
/// 1. luma, smoothed by a 3x3 box so sensor noise does not draw lines;
/// 2. Sobel edges above `edges` (a fraction of the strongest possible edge), thickened to
///    `lineWidth` pixels: ink;
/// 3. the colours posterised to `levels` tones per channel and lifted a little: the fill;
/// 4. a halftone screen at 45° with cells of about `dot` pixels (0: one 160th of the
///    short side): in each cell a dot whose area follows the cell's mean darkness,
///    darkening the fill by `ink` (see ``HalftoneScreen``).
public struct ComicFilter: ImageFilter {
    public static let name = "comic"
    public static let summary = "bold outlines over a colour halftone, like CIComicEffect"
    public static let parameters = [
        FilterParameter(name: "edges", defaultValue: 0.12, range: 0.01...1, help: "edge threshold; lower draws more lines"),
        FilterParameter(name: "lineWidth", defaultValue: 2, range: 1...8, help: "outline thickness in pixels"),
        FilterParameter(name: "levels", defaultValue: 5, range: 2...32, help: "tones per channel of the fill"),
        FilterParameter(name: "dot", defaultValue: 0, range: 0...64, help: "halftone cell size in pixels (0: automatic)"),
        FilterParameter(name: "ink", defaultValue: 0.45, range: 0...1, help: "how much a halftone dot darkens the fill"),
    ]
    let edges: Double
    let lineWidth: Int
    let fill: [UInt8]
    let dot: Int
    let ink: Double

    public init(parameters: [String: Double]) {
        edges = parameters["edges"] ?? 0.12
        lineWidth = Int(parameters["lineWidth"] ?? 2)
        // Posterised and lifted: comic colours are flat and bright.
        let steps = Double(Int(parameters["levels"] ?? 5) - 1)
        fill = (0..<256).map { v in
            let q = (Double(v) / 255 * steps).rounded() / steps
            return clampByte((0.12 + 0.88 * q) * 255)
        }
        dot = Int(parameters["dot"] ?? 0)
        ink = parameters["ink"] ?? 0.45
    }

    public func apply(to image: PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        precondition(image.channels == 3, "filters take RGB")
        let w = image.width, h = image.height
        guard w >= 3, h >= 3 else { return PosterizeFilter(parameters: ["levels": 5]).apply(to: image) }
        let y = lumaPlane(image)
        let outline = OutlineMask(threshold: Int32(edges * 1020), lineWidth: lineWidth).mask(luma: y, width: w, height: h)
        let screen = HalftoneScreen(cell: dot > 0 ? dot : max(4, min(w, h) / 160), luma: y, width: w, height: h)
        // The fill, and the fill darkened by a dot's ink.
        let inkFactor = UInt32(((1 - ink) * 256).rounded())
        let inked = fill.map { UInt8((UInt32($0) * inkFactor) >> 8) }
        var out = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        image.components.withUnsafeBufferPointer { src in
            outline.withUnsafeBufferPointer { outline in
                fill.withUnsafeBufferPointer { fill in
                    inked.withUnsafeBufferPointer { inked in
                        out.components.withUnsafeMutableBufferPointer { dst in
                            nonisolated(unsafe) let dst = dst
                            forEachBand(rows: h) { rows in
                                let dotted = UnsafeMutablePointer<UInt8>.allocate(capacity: w)
                                defer { dotted.deallocate() }
                                for py in rows {
                                    screen.dots(inRow: py, into: dotted)
                                    for px in 0..<w {
                                        let i = py * w + px
                                        if outline[i] != 0 {
                                            dst[i * 3] = 20
                                            dst[i * 3 + 1] = 20
                                            dst[i * 3 + 2] = 24
                                        } else {
                                            let tone = dotted[px] != 0 ? inked : fill
                                            dst[i * 3] = tone[Int(src[i * 3])]
                                            dst[i * 3 + 1] = tone[Int(src[i * 3 + 1])]
                                            dst[i * 3 + 2] = tone[Int(src[i * 3 + 2])]
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    func lumaPlane(_ image: PixelBuffer<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: image.width * image.height)
        let w = image.width
        image.components.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: image.height) { rows in
                    for i in (rows.lowerBound * w)..<(rows.upperBound * w) { dst[i] = luma(src[i * 3], src[i * 3 + 1], src[i * 3 + 2]) }
                }
            }
        }
        return out
    }
}
