/// When a photo or movie was taken, as the camera recorded it: a local date and time,
/// and the UTC offset when the file says it (EXIF OffsetTimeOriginal, QuickTime
/// `com.apple.quicktime.creationdate`), or UTC itself (a movie's `mvhd` time).
///
/// ```swift
/// CaptureTime(exif: "2025:05:26 09:27:06", subseconds: "603", offset: "-05:00")?.iso8601
/// // "2025-05-26T09:27:06.603-05:00"
/// ```
public struct CaptureTime: Sendable, Equatable, Codable {
    public enum Zone: Sendable, Equatable, Codable {
        /// Local time with no offset recorded ("floating" time).
        case unknown
        /// Local time at this many minutes east of UTC.
        case offset(minutes: Int)
        /// The value is UTC itself.
        case utc
    }

    public var year, month, day, hour, minute, second: Int
    /// Sub-second digits as written ("603" for 0.603 s); empty when none.
    public var fraction: String
    public var zone: Zone

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: String = "", zone: Zone = .unknown) {
        (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        self.fraction = fraction
        self.zone = zone
    }

    /// From EXIF's "YYYY:MM:DD HH:MM:SS", with SubSecTime* digits and OffsetTime* ("+02:00").
    /// Nil for blank or zeroed dates ("0000:00:00 00:00:00").
    public init?(exif: String, subseconds: String? = nil, offset: String? = nil) {
        let digits = exif.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard digits.count >= 6 else { return nil }
        self.init(year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5])
        guard isPlausible else { return nil }
        if let sub = subseconds?.filter(\.isNumber), !sub.isEmpty { fraction = sub }
        if let offset, let minutes = Self.parseOffset(offset[...]) { zone = .offset(minutes: minutes) }
    }

    /// From ISO 8601 as QuickTime and FFmpeg write it: "2025-05-26T09:27:06-0500",
    /// "2025-05-26T14:27:06.000000Z", "2019-12-29T19:01:15+01:00".
    public init?(iso8601 text: String) {
        let s = text.trimmingSpaces
        guard s.count >= 19 else { return nil }
        let chars = Array(s)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= chars.count else { return nil }
            return Int(String(chars[from..<from + len]))
        }
        guard let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
            let sec = num(17, 2)
        else { return nil }
        self.init(year: y, month: mo, day: d, hour: h, minute: mi, second: sec)
        guard isPlausible else { return nil }
        var i = 19
        if i < chars.count, chars[i] == "." || chars[i] == "," {
            i += 1
            var f = ""
            while i < chars.count, chars[i].isNumber { f.append(chars[i]); i += 1 }
            fraction = f
        }
        let rest = String(chars[i...])
        if rest == "Z" || rest == "z" {
            zone = .utc
        } else if let minutes = Self.parseOffset(rest[...]) {
            zone = .offset(minutes: minutes)
        }
    }

    /// "+02:00", "-0500", "+01" → minutes east of UTC.
    static func parseOffset(_ text: Substring) -> Int? {
        let t = text.trimmingSpaces
        guard let sign = t.first, sign == "+" || sign == "-" else { return nil }
        let digits = t.dropFirst().filter(\.isNumber)
        guard digits.count == 2 || digits.count == 4, let v = Int(digits) else { return nil }
        let (h, m) = digits.count == 2 ? (v, 0) : (v / 100, v % 100)
        guard h <= 14, m < 60 else { return nil }
        return (sign == "-" ? -1 : 1) * (h * 60 + m)
    }

    var isPlausible: Bool {
        year >= 1826 && (1...12).contains(month) && (1...31).contains(day) && (0...23).contains(hour)
            && (0...59).contains(minute) && (0...60).contains(second)
    }

    /// Minutes east of UTC when known (0 for `.utc`).
    public var utcOffsetMinutes: Int? {
        switch zone {
        case .unknown: nil
        case .offset(let m): m
        case .utc: 0
        }
    }

    /// ISO 8601, with the offset when known: "2025-05-26T09:27:06.603-05:00",
    /// "2025-05-26T14:27:06Z", "2019-12-29T19:01:15.505".
    public var iso8601: String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        var s = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if !fraction.isEmpty { s += "." + fraction }
        switch zone {
        case .unknown: break
        case .utc: s += "Z"
        case .offset(let m):
            s += (m < 0 ? "-" : "+") + pad(abs(m) / 60, 2) + ":" + pad(abs(m) % 60, 2)
        }
        return s
    }

    /// Seconds since 1970-01-01T00:00:00Z. For a floating time (no offset) this reads the
    /// local time as if it were UTC; compare such values only with each other.
    public var secondsSinceEpoch: Double {
        // Days from civil (proleptic Gregorian), after H. Hinnant's algorithm.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        var t = Double(days * 86400 + hour * 3600 + minute * 60 + second)
        if !fraction.isEmpty, let f = Double("0." + fraction) { t += f }
        return t - Double(utcOffsetMinutes ?? 0) * 60
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        let t = drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace)
        return String(t.reversed())
    }
}
