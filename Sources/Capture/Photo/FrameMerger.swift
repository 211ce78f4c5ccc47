import Dispatch
import Imaging

/// Merges a burst of frames into one with less noise, the way phone cameras do: every
/// frame is aligned to the first (a global shift found by block matching on a
/// downscaled luma image, then refined at full size), and each pixel averages the values
/// that agree with the reference within the noise; values that differ (something moved)
/// are left out, so moving things stay sharp instead of ghosting.
public enum FrameMerger {
    /// Per-channel difference, in 8-bit levels, above which a value counts as motion.
    public static let motionThreshold = 28

    public static func merge(_ frames: [PixelBuffer<UInt8>]) -> PixelBuffer<UInt8> {
        guard let reference = frames.first, frames.count > 1 else { return frames.first ?? PixelBuffer(width: 0, height: 0, channels: 3) }
        let w = reference.width, h = reference.height, c = reference.channels
        let others = frames.dropFirst().filter { $0.width == w && $0.height == h && $0.channels == c }
        // The reference's luma images once, not once per frame.
        let referenceLuma = (small: luma(reference, factor: 4), full: luma(reference, factor: 1))
        let shifts = others.map { shift(of: $0, against: referenceLuma) }
        var out = reference
        let threshold = motionThreshold
        let bands = max(1, min(h, 16))
        out.components.withUnsafeMutableBufferPointer { dst in
            let dstBase = UnsafeMutableSendablePointer(dst.baseAddress!)
            reference.components.withUnsafeBufferPointer { ref in
                let refBase = UnsafeSendablePointer(ref.baseAddress!)
                let sources = others.map { $0.components }
                withPointers(sources) { pointers in
                    let sendable = pointers.map { UnsafeSendablePointer($0) }
                    DispatchQueue.concurrentPerform(iterations: bands) { band in
                        let y0 = band * h / bands, y1 = (band + 1) * h / bands
                        for y in y0..<y1 {
                            for x in 0..<w {
                                let i = (y * w + x) * c
                                for ch in 0..<c {
                                    let r = Int(refBase.pointer[i + ch])
                                    var sum = r, count = 1
                                    for (k, p) in sendable.enumerated() {
                                        let sx = min(w - 1, max(0, x + shifts[k].dx)), sy = min(h - 1, max(0, y + shifts[k].dy))
                                        let v = Int(p.pointer[(sy * w + sx) * c + ch])
                                        if abs(v - r) <= threshold {
                                            sum += v
                                            count += 1
                                        }
                                    }
                                    dstBase.pointer[i + ch] = UInt8((sum + count / 2) / count)
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The shift (dx, dy) such that `frame[x + dx, y + dy]` shows what `reference[x, y]`
    /// shows: a ±16-pixel search at quarter size, refined ±2 pixels at full size.
    public static func estimateShift(of frame: PixelBuffer<UInt8>, against reference: PixelBuffer<UInt8>) -> (dx: Int, dy: Int) {
        shift(of: frame, against: (luma(reference, factor: 4), luma(reference, factor: 1)))
    }

    static func shift(of frame: PixelBuffer<UInt8>, against reference: (small: Luma, full: Luma)) -> (dx: Int, dy: Int) {
        let coarse = bestShift(reference.small, luma(frame, factor: 4), around: (0, 0), radius: 4, step: 1)
        return bestShift(reference.full, luma(frame, factor: 1), around: (coarse.dx * 4, coarse.dy * 4), radius: 3, step: 4)
    }

    struct Luma {
        var width: Int, height: Int
        var values: [Int16]
    }

    static func luma(_ p: PixelBuffer<UInt8>, factor: Int) -> Luma {
        let w = p.width / factor, h = p.height / factor
        var values = [Int16](repeating: 0, count: w * h)
        let c = p.channels
        p.components.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    for yy in 0..<factor {
                        let row = (y * factor + yy) * p.width
                        for xx in 0..<factor {
                            let i = (row + x * factor + xx) * c
                            sum += c >= 3 ? (Int(src[i]) * 2 + Int(src[i + 1]) * 5 + Int(src[i + 2])) / 8 : Int(src[i])
                        }
                    }
                    values[y * w + x] = Int16(sum / (factor * factor))
                }
            }
        }
        return Luma(width: w, height: h, values: values)
    }

    /// The shift within `radius` of `around` with the smallest mean absolute difference
    /// over the central region, sampling every `step`th pixel.
    static func bestShift(_ a: Luma, _ b: Luma, around: (Int, Int), radius: Int, step: Int) -> (dx: Int, dy: Int) {
        let margin = radius + max(abs(around.0), abs(around.1)) + 1
        guard a.width > 2 * margin + 8, a.height > 2 * margin + 8 else { return (around.0, around.1) }
        var best = (dx: around.0, dy: around.1), bestCost = Int.max
        for dy in (around.1 - radius)...(around.1 + radius) {
            for dx in (around.0 - radius)...(around.0 + radius) {
                var cost = 0
                var y = margin
                while y < a.height - margin {
                    var x = margin
                    let rowA = y * a.width, rowB = (y + dy) * b.width
                    while x < a.width - margin {
                        cost += abs(Int(a.values[rowA + x]) - Int(b.values[rowB + x + dx]))
                        x += step
                    }
                    y += step
                }
                if cost < bestCost || (cost == bestCost && abs(dx) + abs(dy) < abs(best.dx) + abs(best.dy)) {
                    bestCost = cost
                    best = (dx, dy)
                }
            }
        }
        return best
    }

    private static func withPointers<R>(_ arrays: [[UInt8]], _ body: ([UnsafePointer<UInt8>]) -> R) -> R {
        func recurse(_ index: Int, _ acc: [UnsafePointer<UInt8>]) -> R {
            if index == arrays.count { return body(acc) }
            return arrays[index].withUnsafeBufferPointer { recurse(index + 1, acc + [$0.baseAddress!]) }
        }
        return recurse(0, [])
    }
}

/// Raw pointers handed to concurrentPerform's bands, each of which touches its own rows.
/// `@unchecked Sendable`: handed to `concurrentPerform`, whose iterations read, or write
/// disjoint rows of, a buffer that outlives them.
struct UnsafeSendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafePointer<T>
    init(_ p: UnsafePointer<T>) { pointer = p }
}

/// `@unchecked Sendable`: handed to `concurrentPerform`, whose iterations read, or write
/// disjoint rows of, a buffer that outlives them.
struct UnsafeMutableSendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ p: UnsafeMutablePointer<T>) { pointer = p }
}
