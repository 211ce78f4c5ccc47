import Containers

/// The rules that decide whether a still and a movie are one Live Photo.
///
/// By content identifier first (Apple's own link, confidence 1). Only when *neither*
/// file has an identifier, by name: same folder, same stem, a short movie, and capture
/// times within a few seconds — the way Live Photos look after a tool stripped their
/// metadata. Files whose identifiers differ, or where only one has one, never pair.
public enum PairingRules {
    /// Live Photo movies run about 3 s; anything much longer is a video of its own.
    public static let longestLiveMovie: Double = 6
    /// How far apart the still's and the movie's capture times may be.
    public static let captureTolerance: Double = 5

    /// "IMG_1234" for "IMG_1234.HEIC"; compared case-insensitively.
    public static func stem(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name.lowercased() }
        return String(name[..<dot]).lowercased()
    }

    /// The confidence of a pairing by stem, or nil when the rule does not apply.
    ///
    /// - 0.9: both times give an instant (they carry an offset or are UTC) and agree.
    /// - 0.8: both are floating local times and agree.
    /// - 0.7: one is floating, the other an instant; they agree up to a whole time-zone
    ///   offset (a multiple of 15 minutes), as when a movie's only time is its UTC `mvhd`.
    public static func stemConfidence(
        stillName: String, stillTime: CaptureTime?, movieName: String, movieTime: CaptureTime?, movieDuration: Double?
    ) -> Double? {
        guard stem(stillName) == stem(movieName) else { return nil }
        guard let duration = movieDuration, duration > 0, duration <= longestLiveMovie else { return nil }
        guard let a = stillTime, let b = movieTime else { return nil }
        let delta = a.secondsSinceEpoch - b.secondsSinceEpoch
        switch (a.utcOffsetMinutes != nil, b.utcOffsetMinutes != nil) {
        case (true, true):
            return abs(delta) <= captureTolerance ? 0.9 : nil
        case (false, false):
            return abs(delta) <= captureTolerance ? 0.8 : nil
        default:
            // secondsSinceEpoch reads a floating time as UTC, so the two differ by the
            // unknown offset: accept when the remainder from a 15-minute step is small.
            let quarterHours = (delta / 900).rounded()
            guard abs(quarterHours) <= 14 * 4 else { return nil }
            return abs(delta - quarterHours * 900) <= captureTolerance ? 0.7 : nil
        }
    }
}

/// Apple's names for the files that go with `IMG_1234.HEIC`.
public enum AppleSidecarName {
    /// `IMG_E1234` → `IMG_1234` (a rendered edit, Apple's naming), `name_edited` → `name`
    /// (osxphotos' export naming), and `name_E` → `name` (camlib's export of a render of a
    /// file without Apple's numbering); nil otherwise.
    public static func renderTarget(stem: String) -> String? {
        if let apple = strip(letter: "E", from: stem) { return apple }
        let edited = "_edited"
        if stem.count > edited.count, stem.lowercased().hasSuffix(edited) { return String(stem.dropLast(edited.count)) }
        return stem.count > 2 && stem.hasSuffix("_E") ? String(stem.dropLast(2)) : nil
    }

    /// The asset stem an `.AAE` belongs to: `IMG_1234` and `IMG_O1234` (the camera's
    /// adjustments) → `IMG_1234`.
    public static func adjustmentTarget(stem: String) -> String { strip(letter: "O", from: stem) ?? stem }

    /// Removes `letter` between the last "_" and a run of digits: "IMG_E1234" → "IMG_1234".
    static func strip(letter: Character, from stem: String) -> String? {
        guard let underscore = stem.lastIndex(of: "_") else { return nil }
        let tail = stem[stem.index(after: underscore)...]
        guard tail.first == letter || tail.first == Character(letter.lowercased()) else { return nil }
        let digits = tail.dropFirst()
        guard !digits.isEmpty, digits.allSatisfy(\.isNumber) else { return nil }
        return String(stem[...underscore]) + digits
    }
}
