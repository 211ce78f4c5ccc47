import Foundation

extension AuxiliaryEncoding {
    /// The physical range the samples span, as people write it: `0.49–2.7 1/m`,
    /// `1.2–4 m`; GDepth's `near 12.4–far 391` with its units when the file gives them
    /// (`units not stated` otherwise). nil when the file gives no range.
    public var rangeText: String? {
        if let lo = floatMin, let hi = floatMax {
            return [Self.decimal(lo) + "–" + Self.decimal(hi), units].compactMap { $0 }.joined(separator: " ")
        }
        if let near, let far {
            return "near \(Self.decimal(near))–far \(Self.decimal(far)) " + (units ?? "(units not stated)")
        }
        return nil
    }

    /// A number with three significant digits at most and no trailing zeros: a Float32
    /// read as 1.2000000476837158 prints as 1.2, 390.539306640625 as 391, 4.0 as 4.
    public static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        guard value != 0 else { return "0" }
        let magnitude = Int(log10(abs(value)).rounded(.down)) + 1
        let places = max(0, 3 - magnitude)
        let scale = pow(10, Double(places))
        let rounded = (value * scale).rounded() / scale
        if places == 0 { return String(Int64(rounded)) }
        var text = String(format: "%.\(places)f", rounded)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
