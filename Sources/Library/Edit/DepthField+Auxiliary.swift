import Codecs
import Containers
import Filters
import Foundation
import Imaging

extension DepthField {
    /// The depth a still carries, as the depth step reads it: its disparity or depth map
    /// (a HEIF depth item, as an iPhone or camlib's capture writes it; a Portrait JPEG's
    /// MPF disparity; Google's GDepth) turned into nearness, and its Portrait matte, each
    /// as the photo is displayed. nil when it carries no depth.
    static func carried(by bytes: [UInt8]) throws -> DepthField? {
        let listed = try AuxiliaryExtractor.scan(bytes: bytes, decode: .none).auxiliaryImages
        // Disparity is what a lens's blur follows; depth is turned into it.
        guard let map = listed.first(where: { $0.type == .disparity && $0.problem == nil }) ?? listed.first(where: { $0.type == .depth && $0.problem == nil })
        else {
            if let broken = listed.first(where: { $0.type == .disparity || $0.type == .depth }) {
                throw MediaAnalyzer.Failure(reason: "its \(broken.type.optionName) map cannot be read (\(broken.problem ?? "")), so the depth step cannot run")
            }
            return nil
        }
        let matte = listed.first { $0.type == .portraitEffectsMatte && $0.problem == nil }
        let decoded = try AuxiliaryExtractor.scan(bytes: bytes, decode: .only(Set([map.source] + (matte.map { [$0.source] } ?? []))))
            .auxiliaryImages
        guard let mapSamples = decoded.first(where: { $0.source == map.source }) else { return nil }
        guard let samples = mapSamples.samples else {
            throw MediaAnalyzer.Failure(
                reason: "its \(map.type.optionName) map (\(map.source)) cannot be decoded (\(mapSamples.problem ?? "no samples")), so the depth step cannot run")
        }
        let matteSamples = matte.flatMap { m in decoded.first { $0.source == m.source }?.samples }
        return DepthField(nearness: nearness(samples, of: mapSamples), matte: matteSamples.map { unitPlane($0) })
    }

    /// Why a recipe with a depth step cannot render a photo without depth.
    static let missing =
        "the depth step needs the photo's depth or disparity map, and this photo carries none (`camlib aux list` shows what a photo carries)"

    /// ``carried(by:)``, or an error saying that the photo carries no depth.
    static func required(by bytes: [UInt8]) throws -> DepthField {
        guard let field = try carried(by: bytes) else { throw MediaAnalyzer.Failure(reason: missing) }
        return field
    }

    /// Whether the still at `path` carries a depth or disparity map (read from its
    /// headers, nothing decoded): an edit checks before it starts its movie's frames.
    static func isCarried(by path: String) throws -> Bool {
        try AuxiliaryExtractor.scan(path: path, decode: .none).auxiliaryImages.contains { $0.type == .disparity || $0.type == .depth }
    }

    /// Samples scaled to 0...1 (the first channel of a colour image).
    static func unitPlane(_ samples: ImageSamples) -> PixelBuffer<Float> {
        let (w, h, ch) = (samples.width, samples.height, samples.channels)
        var plane = PixelBuffer<Float>(width: w, height: h, channels: 1)
        switch samples {
        case .eight(let p):
            for i in 0..<(w * h) { plane.components[i] = Float(p.components[i * ch]) / 255 }
        case .sixteen(let p, let bits):
            let top = Float((1 << max(1, min(16, bits))) - 1)
            for i in 0..<(w * h) { plane.components[i] = min(1, Float(p.components[i * ch]) / top) }
        }
        return plane
    }

    /// A map's samples as nearness: disparity as stored (its sign turned when its range
    /// runs from near to far), depth as one over the distance its encoding gives.
    static func nearness(_ samples: ImageSamples, of image: FoundAuxiliaryImage) -> PixelBuffer<Float> {
        var plane = unitPlane(samples)
        let e = image.encoding
        func each(_ transform: (Float) -> Float) {
            for i in plane.components.indices { plane.components[i] = transform(plane.components[i]) }
        }
        if image.type == .disparity || e.format == DepthRepresentation.Kind.uniformInverseZ.rawValue {
            if let lo = e.floatMin, let hi = e.floatMax, hi < lo { each { -$0 } }
            return plane
        }
        // Depth: the distance each sample stands for, then its inverse.
        let smallest: Float = 1e-3
        if let near = e.near, let far = e.far, far > near, e.format == "RangeInverse" || e.format == "RangeLinear" {
            let (n, f) = (Float(near), Float(far))
            if e.format == "RangeInverse" {
                each { v in max(smallest, f - v * (f - n)) / max(smallest, f * n) }
            } else {
                each { v in 1 / max(smallest, v * (f - n) + n) }
            }
        } else if let lo = e.floatMin, let hi = e.floatMax {
            let (a, b) = (Float(lo), Float(hi))
            each { v in 1 / max(smallest, a + v * (b - a)) }
        } else {
            // No units: near is dark, as every depth map camlib knows draws it; an offset
            // keeps the nearest finite.
            each { v in 1 / (0.05 + v) }
        }
        return plane
    }
}
