import CRowLoops
import Imaging

/// Consecutive colour steps that look at one pixel at a time (exposure, contrast, the
/// white balance, saturation), drawn over 8-bit RGB in one pass: consecutive curves
/// composed into one table, and each row taken through every step while it is in cache.
/// The bytes are those of the steps one after the other (a table after a table is one
/// table; saturation is the same integer arithmetic).
struct ColourPass {
    enum Step {
        /// 768 entries: red's, green's, blue's.
        case tables([UInt8])
        /// ``Chroma/scaled(_:_:_:by:)``'s factor.
        case chroma(Int32)
    }
    private(set) var steps: [Step] = []
    /// Whether the pass changes nothing (no step, or identities alone).
    var isEmpty: Bool { steps.isEmpty }

    init() {}

    /// A pass of `filter` alone (which must be one the pass draws).
    init(_ filter: any ImageFilter) {
        let taken = append(filter)
        precondition(taken, "\(type(of: filter).name) is not a colour step")
    }

    /// Takes `filter` in if it is a step the pass draws; false (and nothing taken) if not.
    mutating func append(_ filter: any ImageFilter) -> Bool {
        if let curves = filter as? any ChannelCurveFilter {
            let tables = curves.curve.bytes
            if case .tables(let before)? = steps.last {
                steps[steps.count - 1] = .tables((0..<768).map { i in tables[i / 256 * 256 + Int(before[i])] })
            } else {
                steps.append(.tables(tables))
            }
        } else if let saturation = filter as? SaturationFilter {
            if saturation.factor != 256 { steps.append(.chroma(saturation.factor)) }
        } else {
            return false
        }
        return true
    }

    /// Every pixel of `picture` through the steps, in place.
    func apply(to picture: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var out = picture
        let width = out.width
        out.components.withUnsafeMutableBufferPointer { pixels in
            nonisolated(unsafe) let pixels = pixels
            forEachBand(rows: out.height) { rows in
                for y in rows { draw(pixels.baseAddress! + y * width * 3, count: width) }
            }
        }
        return out
    }

    private func draw(_ row: UnsafeMutablePointer<UInt8>, count: Int) {
        for step in steps {
            switch step {
            case .tables(let tables): tables.withUnsafeBufferPointer { camlib_rgb_tables(row, count, $0.baseAddress) }
            case .chroma(let factor): camlib_rgb_chroma_scaled(row, count, factor)
            }
        }
    }
}
