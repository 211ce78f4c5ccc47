import Foundation

/// Apple's pixel data info (`apdi` XMP), as an iPhone writes it into each auxiliary image
/// of a Portrait JPEG (an MPF image after the photo): what the image is, how it was
/// stored, and for depth and disparity the values its smallest and largest samples stand
/// for. Laid out after `apple-portrait-jpeg/jpeg_depth_data.jpg` (iPhone XS), whose
/// disparity map says `AuxiliaryImageType` disparity with `FloatMinValue`/`FloatMaxValue`
/// and whose portrait matte says type `depth`, subtype `portraiteffectsmatte`.
public struct ApplePixelDataInfo: Sendable, Equatable {
    public var auxiliaryImageType: String
    public var auxiliaryImageSubType: String?
    /// CoreVideo pixel formats as four-character codes: how the image is stored (`L008`,
    /// 8-bit one component) and what the camera measured (`hdis`/`hdep`, half-float).
    public var storedFormat: String
    public var nativeFormat: String
    /// What sample values 0 and `intMax` stand for (metres for depth, 1/metres for
    /// disparity); linear in between.
    public var floatRange: ClosedRange<Double>?
    public var intMax: Int

    /// The description of an 8-bit image of `type`; nil for types a Portrait JPEG does
    /// not carry this way (gain maps need their own parameters; `other` says nothing).
    public init?(type: AuxiliaryImageType, floatRange: ClosedRange<Double>? = nil) {
        switch type {
        case .depth, .disparity:
            auxiliaryImageType = type == .depth ? "depth" : "disparity"
            auxiliaryImageSubType = nil
            nativeFormat = type == .depth ? "hdep" : "hdis"
        case .portraitEffectsMatte:
            auxiliaryImageType = "depth"
            auxiliaryImageSubType = "portraiteffectsmatte"
            nativeFormat = "L008"
        case .skinMatte, .hairMatte, .teethMatte, .glassesMatte, .skyMatte:
            // No iPhone JPEG with semantic mattes is at hand: the type is the URN a HEIC
            // gives them and the subtype their name, which is how camlib reads them back.
            guard let urn = type.urn, let name = urn.split(separator: ":").last else { return nil }
            auxiliaryImageType = urn
            auxiliaryImageSubType = String(name)
            nativeFormat = "L008"
        case .hdrGainMap, .other:
            return nil
        }
        storedFormat = "L008"
        self.floatRange = floatRange
        intMax = 255
    }

    /// A four-character code as the decimal number Apple writes (`L008` → 1278226488).
    static func number(_ code: String) -> UInt32 {
        code.utf8.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The whole XMP packet, UTF-8, as the APP1 segment of the aux image carries it.
    public var packet: String {
        var fields: [(String, String)] = [("AuxiliaryImageType", auxiliaryImageType)]
        if let auxiliaryImageSubType { fields.append(("AuxiliaryImageSubType", auxiliaryImageSubType)) }
        fields += [("StoredFormat", "\(Self.number(storedFormat))"), ("NativeFormat", "\(Self.number(nativeFormat))")]
        if let floatRange {
            fields += [
                ("IntMinValue", "0"), ("IntMaxValue", "\(intMax)"),
                ("FloatMinValue", "\(floatRange.lowerBound)"), ("FloatMaxValue", "\(floatRange.upperBound)"),
            ]
        }
        let properties = fields.map { "         <apdi:\($0.0)>\(Self.escaped($0.1))</apdi:\($0.0)>" }.joined(separator: "\n")
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="camlib">
               <rdf:RDF xmlns:rdf="\(XMPNamespace.rdf)">
                  <rdf:Description rdf:about=""
                        xmlns:apdi="\(XMPNamespace.apdi)">
            \(properties)
                  </rdf:Description>
               </rdf:RDF>
            </x:xmpmeta>
            """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
