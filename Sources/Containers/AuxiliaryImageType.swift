/// What an auxiliary image holds, told from its HEIF `auxC` URN, Apple's `apdi` pixel
/// data info, or the Google XMP that carries it. The raw values are camlib's public names
/// (JSON `aux[].type`, the catalog's `aux_image.type`).
public enum AuxiliaryImageType: String, CaseIterable, Codable, Sendable {
    case depth, disparity
    case portraitEffectsMatte, skinMatte, hairMatte, teethMatte, glassesMatte, skyMatte
    case hdrGainMap
    case other

    /// HEIF `auxC` URNs (ISO/IEC 23008-12 and Apple's, see media/README.md).
    public static let depthURNs: Set<String> = ["urn:mpeg:hevc:2015:auxid:2", "urn:mpeg:mpegB:cicp:systems:auxiliary:depth"]
    public static let appleURNs: [String: AuxiliaryImageType] = [
        "urn:com:apple:photo:2018:aux:portraiteffectsmatte": .portraitEffectsMatte,
        "urn:com:apple:photo:2019:aux:semanticskinmatte": .skinMatte,
        "urn:com:apple:photo:2019:aux:semantichairmatte": .hairMatte,
        "urn:com:apple:photo:2019:aux:semanticteethmatte": .teethMatte,
        "urn:com:apple:photo:2020:aux:semanticglassesmatte": .glassesMatte,
        "urn:com:apple:photo:2020:aux:semanticskymatte": .skyMatte,
        "urn:com:apple:photo:2020:aux:hdrgainmap": .hdrGainMap,
    ]

    /// The URN camlib writes for a type when attaching it to a HEIF (nil for `other`).
    public var urn: String? {
        switch self {
        case .depth, .disparity: "urn:mpeg:hevc:2015:auxid:2"
        case .other: nil
        default: Self.appleURNs.first { $0.value == self }?.key
        }
    }

    /// Classifies from whatever the file says; `apdiType`/`apdiSubType` are Apple's
    /// `apdi:AuxiliaryImageType` ("disparity", "depth") and `apdi:AuxiliaryImageSubType`
    /// ("portraiteffectsmatte", "skinmatte", …), which refine a depth URN into disparity
    /// and name the mattes of Portrait JPEGs.
    public init(urn: String?, apdiType: String? = nil, apdiSubType: String? = nil) {
        if let sub = apdiSubType?.lowercased(), !sub.isEmpty, let matte = Self.matte(named: sub) {
            self = matte
            return
        }
        if let urn {
            if let known = Self.appleURNs[urn] {
                self = known
                return
            }
            if Self.depthURNs.contains(urn) {
                self = apdiType?.lowercased() == "disparity" ? .disparity : .depth
                return
            }
        }
        switch apdiType?.lowercased() {
        case "disparity": self = .disparity
        case "depth": self = .depth
        default: self = .other
        }
    }

    static func matte(named sub: String) -> AuxiliaryImageType? {
        switch sub {
        case "portraiteffectsmatte": .portraitEffectsMatte
        case "skinmatte", "semanticskinmatte": .skinMatte
        case "hairmatte", "semantichairmatte": .hairMatte
        case "teethmatte", "semanticteethmatte": .teethMatte
        case "glassesmatte", "semanticglassesmatte": .glassesMatte
        case "skymatte", "semanticskymatte": .skyMatte
        default: nil
        }
    }

    /// The name used on the command line (`--has portrait-matte`, `--type skin-matte`).
    public var optionName: String {
        switch self {
        case .depth: "depth"
        case .disparity: "disparity"
        case .portraitEffectsMatte: "portrait-matte"
        case .skinMatte: "skin-matte"
        case .hairMatte: "hair-matte"
        case .teethMatte: "teeth-matte"
        case .glassesMatte: "glasses-matte"
        case .skyMatte: "sky-matte"
        case .hdrGainMap: "gain-map"
        case .other: "other"
        }
    }

    public init?(optionName: String) {
        guard let match = Self.allCases.first(where: { $0.optionName == optionName || $0.rawValue == optionName }) else { return nil }
        self = match
    }
}
