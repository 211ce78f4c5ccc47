import Filters
import Foundation

/// An Apple Photos edit (`com.apple.photo` adjustment data, the JSON inside an `.AAE`)
/// read as a camlib recipe: the steps camlib reproduces, and the names of the enabled
/// adjustments it cannot.
///
/// - `DepthEffect` → `depth` with its aperture, focused at the centre of its focus
///   rectangle (fractions of the photo as displayed, from the top left). First, so its
///   focus is a point of the whole photo.
/// - `Crop` → `crop`: its rectangle, in pixels of the photo as displayed (`masterWidth`
///   and `masterHeight`), its origin taken at the bottom left as Core Image's is (the
///   corpus's crops span the whole height: no sample confirms it). A crop that also
///   straightens or corrects perspective is not reproduced (no sample gives the sign).
/// - `SmartTone` → `shadows` (its Light, `inputLight`, which lifts the dark tones most),
///   `exposure` (`offsetExposure` and `offsetBrightness`, in stops), `contrast`,
///   `highlights` and `shadows` (their offsets); a black point or local light offset is
///   not reproduced.
/// - `SmartColor` → `vibrance` (its Color, `inputColor`) and `saturation`
///   (`offsetSaturation`); a colour contrast or cast offset is not reproduced.
/// - `Effect` `3DNoir`/`Noir` → `noir` with a contrast of 1.2 (Photos' is softer than
///   Core Image's), `3DMono`/`Mono` → `mono`; other effects are not reproduced.
///
/// The Light and Noir mappings were chosen by SSIM against Apple's own renders of the
/// corpus's IMG_4120 and IMG_3582 (bench/edit.py section 2d).
/// - `SmartBlackAndWhite` → `mono`, then `contrast` (Photos' black and white is a luma
///   mix with a steeper tone curve); its grain, tone and neutral offsets are not.
///
/// Disabled adjustments are left out. An edit with anything else enabled stays Apple's
/// render (``unreproduced`` names it).
public struct AppleRecipe: Sendable, Equatable {
    public static let formatIdentifier = "com.apple.photo"

    public var steps: [FilterStep]
    /// The enabled adjustments camlib cannot reproduce, in Apple's words, in order.
    public var unreproduced: [String]

    /// The contrast Photos' black and white adds over a plain luma mix.
    static let blackAndWhiteContrast = 0.3

    public init(json: String) throws {
        guard let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let adjustments = document["adjustments"] as? [[String: Any]]
        else {
            throw MediaAnalyzer.Failure(reason: "Apple's adjustment data has no list of adjustments")
        }
        let metadata = document["metadata"] as? [String: Any] ?? [:]
        // Applied in this order, whatever the order Apple lists them in.
        var depth: [FilterStep] = [], geometry: [FilterStep] = [], light: [FilterStep] = [], colour: [FilterStep] = [], look: [FilterStep] = []
        var unreproduced: [String] = []
        func number(_ key: String, in dictionary: [String: Any]) -> Double? { (dictionary[key] as? NSNumber)?.doubleValue }
        func rounded(_ v: Double) -> Double { (v * 10_000).rounded() / 10_000 }
        for adjustment in adjustments where (adjustment["enabled"] as? Bool) ?? true {
            let identifier = adjustment["identifier"] as? String ?? "an unnamed adjustment"
            let settings = adjustment["settings"] as? [String: Any] ?? [:]
            func value(_ key: String) -> Double { number(key, in: settings) ?? 0 }
            func leftOut(_ keys: [String]) -> [String] { keys.filter { value($0) != 0 } }
            switch identifier {
            case "DepthEffect":
                guard let aperture = number("aperture", in: settings), let rect = settings["focusRect"] as? [String: Any],
                    let x = number("x", in: rect), let y = number("y", in: rect), let w = number("w", in: rect), let h = number("h", in: rect)
                else {
                    unreproduced.append(identifier + " without an aperture and a focus rectangle")
                    continue
                }
                // Apple's aperture is a Float written out as a Double (2.799999952316284).
                let f = (min(16, max(1.4, aperture)) * 100).rounded() / 100
                depth.append(try FilterStep(name: DepthFilter.name, parameters: ["aperture": f, "x": rounded(min(1, max(0, x + w / 2))), "y": rounded(min(1, max(0, y + h / 2)))]))
            case "Crop":
                let skewed = leftOut(["straightenAngle", "pitch", "yaw", "angle"])
                guard skewed.isEmpty else {
                    unreproduced.append(identifier + " with " + skewed.joined(separator: ", "))
                    continue
                }
                guard let W = number("masterWidth", in: metadata), let H = number("masterHeight", in: metadata), W > 0, H > 0,
                    let w = number("width", in: settings), let h = number("height", in: settings), w > 0, h > 0
                else {
                    unreproduced.append(identifier + " without the photo's size")
                    continue
                }
                let x = value("xOrigin"), yFromBottom = value("yOrigin")
                let parameters = ["x": rounded(x / W), "y": rounded((H - yFromBottom - h) / H), "width": rounded(w / W), "height": rounded(h / H)]
                guard let step = try? FilterStep(name: CropFilter.name, parameters: parameters) else {
                    unreproduced.append(identifier + " outside the photo")
                    continue
                }
                if parameters != ["x": 0, "y": 0, "width": 1, "height": 1] { geometry.append(step) }
            case "SmartTone":
                let other = leftOut(["offsetBlackPoint", "offsetLocalLight"])
                guard other.isEmpty else {
                    unreproduced.append(identifier + " with " + other.joined(separator: ", "))
                    continue
                }
                let ev = value("offsetExposure") + value("offsetBrightness")
                if ev != 0 { light.append(try FilterStep(name: ExposureFilter.name, parameters: ["ev": rounded(max(-4, min(4, ev)))])) }
                let amounts = [
                    (ContrastFilter.name, value("offsetContrast")), (HighlightsFilter.name, value("offsetHighlights")),
                    (ShadowsFilter.name, value("inputLight") + value("offsetShadows")),
                ]
                for (name, amount) in amounts where amount != 0 {
                    light.append(try FilterStep(name: name, parameters: ["amount": rounded(max(-1, min(1, amount)))]))
                }
            case "SmartColor":
                let other = leftOut(["offsetContrast", "offsetCast"])
                guard other.isEmpty else {
                    unreproduced.append(identifier + " with " + other.joined(separator: ", "))
                    continue
                }
                if value("inputColor") != 0 {
                    colour.append(try FilterStep(name: VibranceFilter.name, parameters: ["amount": rounded(max(-1, min(1, value("inputColor"))))]))
                }
                if value("offsetSaturation") != 0 {
                    colour.append(try FilterStep(name: SaturationFilter.name, parameters: ["amount": rounded(max(-1, min(1, value("offsetSaturation"))))]))
                }
            case "Effect":
                switch settings["effectName"] as? String {
                case "3DNoir", "Noir": look.append(try FilterStep(name: NoirFilter.name, parameters: ["contrast": 1.2]))
                case "3DMono", "Mono": look.append(try FilterStep(name: MonoFilter.name))
                case let name: unreproduced.append("Effect " + (name ?? "without a name"))
                }
            case "SmartBlackAndWhite":
                let offsets = leftOut(["offsetGrain", "offsetTone", "offsetNeutralGamma", "offsetStrength"])
                guard offsets.isEmpty else {
                    unreproduced.append(identifier + " with " + offsets.joined(separator: ", "))
                    continue
                }
                look.append(try FilterStep(name: MonoFilter.name))
                look.append(try FilterStep(name: ContrastFilter.name, parameters: ["amount": Self.blackAndWhiteContrast]))
            default:
                unreproduced.append(identifier)
            }
        }
        (steps, self.unreproduced) = (depth + geometry + light + colour + look, unreproduced)
    }
}
