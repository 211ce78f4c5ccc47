import Codecs
import Containers
import Foundation
import Imaging

/// What AVCam's depth and matte toggles ask for, and how each becomes a HEIF auxiliary
/// image: depth as `urn:mpeg:hevc:2015:auxid:2` with its depth representation (uniform Z
/// between the nearest and farthest distance, metres), mattes with Apple's URNs. Depth is
/// a quarter of the photo's size and mattes half, as iPhones store them; all lossless.
public enum AuxiliaryOutput: String, Sendable, CaseIterable {
    case depth, portraitMatte, skin, hair, teeth, glasses

    public var urn: String {
        switch self {
        case .depth: "urn:mpeg:hevc:2015:auxid:2"
        case .portraitMatte: "urn:com:apple:photo:2018:aux:portraiteffectsmatte"
        case .skin: "urn:com:apple:photo:2019:aux:semanticskinmatte"
        case .hair: "urn:com:apple:photo:2019:aux:semantichairmatte"
        case .teeth: "urn:com:apple:photo:2019:aux:semanticteethmatte"
        case .glasses: "urn:com:apple:photo:2020:aux:semanticglassesmatte"
        }
    }

    /// The image for this output from the scene's truth, in stored (sensor) orientation,
    /// and the bytes after its URN.
    func image(from truth: SceneTruth) -> (samples: PixelBuffer<UInt8>, auxSubtype: [UInt8], xmp: [UInt8]?)? {
        switch self {
        case .depth:
            // 0 is "unknown" (a depth camera's holes): it maps to the far end.
            let known = truth.depth.components.filter { $0 > 0 }
            let near = Double(known.min() ?? 0), far = Double(known.max() ?? 1)
            let span = max(far - near, 1e-6)
            let small = Self.sampled(truth.depth, factor: 4) { v in v > 0 ? UInt8(((Double(v) - near) / span * 255).rounded()) : 255 }
            return (small, DepthRepresentation(kind: .uniformZ, zNear: near, zFar: far).auxSubtype, nil)
        case .portraitMatte:
            let note = truth.portraitMatteDerivedFromDepth ? Self.derivedFromDepthXMP : nil
            return (Self.sampled(truth.portraitMatte, factor: 2) { $0 }, [], note)
        case .skin: return truth.skinMatte.map { (Self.sampled($0, factor: 2) { $0 }, [], nil) }
        case .hair: return truth.hairMatte.map { (Self.sampled($0, factor: 2) { $0 }, [], nil) }
        case .teeth: return truth.teethMatte.map { (Self.sampled($0, factor: 2) { $0 }, [], nil) }
        case .glasses: return nil
        }
    }

    /// The matte's own XMP saying it was computed from depth: the catalog keeps it
    /// (`camlib:DerivedFrom` in the aux image's encoding properties).
    static let derivedFromDepthXMP = Array(("""
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:camlib="\(XMPNamespace.camlibCapture)" camlib:DerivedFrom="depth" \
        camlib:Method="nearest surface within 0.5 m"/></rdf:RDF></x:xmpmeta>
        """).utf8)

    /// Every `factor`th pixel (the centre of each block), mapped to 8 bits.
    static func sampled<T>(_ p: PixelBuffer<T>, factor: Int, _ map: (T) -> UInt8) -> PixelBuffer<UInt8> {
        let w = max(1, p.width / factor) & ~1, h = max(1, p.height / factor) & ~1
        var out = PixelBuffer<UInt8>(width: max(2, w), height: max(2, h), channels: 1)
        for y in 0..<out.height {
            let sy = min(p.height - 1, y * factor + factor / 2)
            for x in 0..<out.width {
                out.components[y * out.width + x] = map(p.components[sy * p.width + min(p.width - 1, x * factor + factor / 2)])
            }
        }
        return out
    }

}

/// Attaching a capture's depth and mattes to its HEIC.
enum AuxiliaryCapture {
    /// Attaches `outputs` to the HEIC `photo`.
    static func attach(_ outputs: [AuxiliaryOutput], from truth: SceneTruth, orientation: EXIFOrientation, to photo: [UInt8]) throws -> [UInt8] {
        var bytes = photo
        for output in outputs {
            guard let (samples, subtype, xmp) = output.image(from: truth) else {
                throw CaptureError.unsupported("the camera cannot deliver a \(output.rawValue) matte")
            }
            bytes = try HEIFAuxiliaryWriter.attach(
                to: bytes, samples: .eight(samples).applying(orientation), urn: output.urn, auxSubtype: subtype, xmp: xmp)
        }
        return bytes
    }
}
