import Imaging

/// The look of Core Image's CIComicEffect: bold dark outlines from edge detection over a
/// colour halftone of dots on a posterised fill.
///
/// 1. luma, smoothed by a 3x3 box so sensor noise does not draw lines;
/// 2. Sobel edges above `edges` (a fraction of the strongest possible edge), thickened to
///    `lineWidth` pixels: ink;
/// 3. the colours posterised to `levels` tones per channel and lifted a little: the fill;
/// 4. a halftone screen at 45° with cells of `dot` pixels (0: one 160th of the short
///    side): in each cell a dot whose area follows the cell's darkness, darkening the
///    fill by `ink`.
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
        let smooth = boxBlur3(y, width: w, height: h)
        let outline = thicken(sobelMask(smooth, width: w, height: h), width: w, height: h)

        let cell = dot > 0 ? dot : max(4, min(w, h) / 160)
        let inkFactor = UInt32(((1 - ink) * 256).rounded())
        var out = PixelBuffer<UInt8>(width: w, height: h, channels: 3)
        // The screen: cells on a grid turned 45°, u = (x + y) / √2, v = (x − y) / √2.
        let pitch = Double(cell)
        let invSqrt2 = 0.7071067811865476
        let step = invSqrt2 / pitch  // u and v change by this per pixel along a row
        // Dot radius² in cell units for each luma: area proportional to darkness beyond the
        // lightest 15%, which stays clean paper.
        let radius2: [Double] = (0..<256).map { y in
            let darkness = 1 - Double(y) / 255
            return 0.62 * 0.62 * max(0, darkness - 0.15) / 0.85
        }
        image.components.withUnsafeBufferPointer { src in
            smooth.withUnsafeBufferPointer { smooth in
                outline.withUnsafeBufferPointer { outline in
                    fill.withUnsafeBufferPointer { fill in
                        radius2.withUnsafeBufferPointer { radius2 in
                            out.components.withUnsafeMutableBufferPointer { dst in
                                nonisolated(unsafe) let dst = dst
                                forEachBand(rows: h) { rows in
                                    for py in rows {
                                        var u = Double(py) * step
                                        var v = -Double(py) * step
                                        for px in 0..<w {
                                            defer {
                                                u += step
                                                v += step
                                            }
                                            let i = py * w + px
                                            if outline[i] != 0 {
                                                dst[i * 3] = 20
                                                dst[i * 3 + 1] = 20
                                                dst[i * 3 + 2] = 24
                                                continue
                                            }
                                            let cu = u.rounded(.down) + 0.5, cv = v.rounded(.down) + 0.5
                                            // The cell centre back in image coordinates, clamped.
                                            let cx = Int(((cu + cv) * invSqrt2 * pitch).rounded())
                                            let cy = Int(((cu - cv) * invSqrt2 * pitch).rounded())
                                            let centre = smooth[min(h - 1, max(0, cy)) * w + min(w - 1, max(0, cx))]
                                            let du = u - cu, dv = v - cv
                                            let f = du * du + dv * dv < radius2[Int(centre)] ? inkFactor : 256
                                            dst[i * 3] = UInt8((UInt32(fill[Int(src[i * 3])]) * f) >> 8)
                                            dst[i * 3 + 1] = UInt8((UInt32(fill[Int(src[i * 3 + 1])]) * f) >> 8)
                                            dst[i * 3 + 2] = UInt8((UInt32(fill[Int(src[i * 3 + 2])]) * f) >> 8)
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

    /// 3x3 box average; edge rows and columns copy their neighbours' clamp.
    func boxBlur3(_ plane: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: w * h)
        plane.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: h) { rows in
                    for y in rows {
                        let y0 = max(0, y - 1) * w, y1 = y * w, y2 = min(h - 1, y + 1) * w
                        for x in 0..<w {
                            let x0 = max(0, x - 1), x2 = min(w - 1, x + 1)
                            var sum = UInt32(src[y0 + x0]) + UInt32(src[y0 + x]) + UInt32(src[y0 + x2])
                            sum += UInt32(src[y1 + x0]) + UInt32(src[y1 + x]) + UInt32(src[y1 + x2])
                            sum += UInt32(src[y2 + x0]) + UInt32(src[y2 + x]) + UInt32(src[y2 + x2])
                            dst[y1 + x] = UInt8((sum * 7282 + 32768) >> 16)  // ÷ 9
                        }
                    }
                }
            }
        }
        return out
    }

    /// 1 where the Sobel gradient (|gx| + |gy|, at most 2040) exceeds the threshold.
    func sobelMask(_ plane: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        let threshold = Int32(edges * 1020)
        var out = [UInt8](repeating: 0, count: w * h)
        plane.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: h) { rows in
                    for y in rows where y > 0 && y < h - 1 {
                        let a = (y - 1) * w, b = y * w, c = (y + 1) * w
                        for x in 1..<(w - 1) {
                            let tl = Int32(p[a + x - 1]), t = Int32(p[a + x]), tr = Int32(p[a + x + 1])
                            let l = Int32(p[b + x - 1]), r = Int32(p[b + x + 1])
                            let bl = Int32(p[c + x - 1]), bm = Int32(p[c + x]), br = Int32(p[c + x + 1])
                            let gx = (tr + 2 * r + br) - (tl + 2 * l + bl)
                            let gy = (bl + 2 * bm + br) - (tl + 2 * t + tr)
                            dst[b + x] = abs(gx) + abs(gy) > threshold ? 1 : 0
                        }
                    }
                }
            }
        }
        return out
    }

    /// Dilates the mask to `lineWidth` pixels (a square of that size).
    func thicken(_ mask: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        guard lineWidth > 1 else { return mask }
        let before = (lineWidth - 1) / 2, after = lineWidth - 1 - before
        // Separable: rows, then columns.
        var rowsPass = [UInt8](repeating: 0, count: w * h)
        mask.withUnsafeBufferPointer { src in
            rowsPass.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: h) { rows in
                    for y in rows {
                        for x in 0..<w where src[y * w + x] != 0 {
                            for xx in max(0, x - before)...min(w - 1, x + after) { dst[y * w + xx] = 1 }
                        }
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        rowsPass.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                nonisolated(unsafe) let dst = dst
                forEachBand(rows: h) { rows in
                    for y in rows {
                        for x in 0..<w {
                            var on: UInt8 = 0
                            for yy in max(0, y - after)...min(h - 1, y + before) where src[yy * w + x] != 0 {
                                on = 1
                                break
                            }
                            dst[y * w + x] = on
                        }
                    }
                }
            }
        }
        return out
    }
}
