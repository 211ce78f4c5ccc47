import Imaging

/// A named filter with its parameters: one step of an edit.
///
/// Written on the command line as `name` or `name:key=value,key=value`
/// (`vignette:strength=0.4`); stored in adjustment data as JSON with sorted keys, so the
/// same recipe always serialises to the same bytes.
public struct FilterStep: Codable, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    /// Every parameter of the filter, defaults filled in, so a stored recipe renders the
    /// same even if a later camlib changes a default.
    public var parameters: [String: Double]

    /// Parses `comic` or `vignette:strength=0.4,radius=0.8`, checking the filter and its
    /// parameter names and ranges.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first.map(trimmed), !name.isEmpty else {
            throw FilterError("an empty filter; use one of \(FilterCatalog.names.joined(separator: ", "))")
        }
        guard let filter = FilterCatalog.filter(named: name) else {
            throw FilterError("unknown filter \"\(name)\"; use one of \(FilterCatalog.names.joined(separator: ", "))")
        }
        var given: [String: Double] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { trimmed(String($0)) }
                guard kv.count == 2 else { throw FilterError("\(name): \"\(pair)\" is not key=value") }
                let parameter = filter.parameters.first { $0.name == kv[0] }
                guard let value = parameter?.value(parsing: kv[1]) ?? (parameter == nil ? Double(kv[1]) : nil), value.isFinite else {
                    if let choices = parameter?.choices {
                        throw FilterError("\(name): \(kv[0]) is one of \(choices.joined(separator: ", ")), not \"\(kv[1])\"")
                    }
                    throw FilterError("\(name): \"\(pair)\" is not key=\(parameter?.format == .ratio ? "ratio (4:3) or number" : "number")")
                }
                given[kv[0]] = value
            }
        }
        try self.init(name: name, parameters: given, filter: filter)
    }

    public init(name: String, parameters: [String: Double] = [:]) throws {
        guard let filter = FilterCatalog.filter(named: name) else { throw FilterError("unknown filter \"\(name)\"") }
        try self.init(name: name, parameters: parameters, filter: filter)
    }

    private init(name: String, parameters given: [String: Double], filter: any ImageFilter.Type) throws {
        var parameters: [String: Double] = [:]
        for p in filter.parameters {
            let value = given[p.name] ?? p.defaultValue
            guard p.range.contains(value) else {
                throw FilterError("\(name): \(p.name)=\(p.written(value)) is outside \(p.written(p.range.lowerBound))...\(p.written(p.range.upperBound))")
            }
            if let unit = p.multipleOf, (value / unit).rounded() * unit != value {
                throw FilterError("\(name): \(p.name)=\(p.written(value)) is not a multiple of \(p.written(unit))")
            }
            parameters[p.name] = value
        }
        if let problem = filter.check(parameters) { throw FilterError("\(name): \(problem)") }
        if let unknown = given.keys.first(where: { key in !filter.parameters.contains { $0.name == key } }) {
            let known = filter.parameters.map(\.name)
            throw FilterError("\(name) has no parameter \"\(unknown)\"\(known.isEmpty ? "" : "; it takes \(known.joined(separator: ", "))")")
        }
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        let known = FilterCatalog.filter(named: name)?.parameters ?? []
        func text(_ key: String) -> String {
            let v = parameters[key]!
            return known.first { $0.name == key }?.written(v) ?? (v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v))
        }
        return parameters.isEmpty ? name : name + ":" + parameters.keys.sorted().map { "\($0)=\(text($0))" }.joined(separator: ",")
    }

    // Stored as `{"name", "parameters"}`; a choice's value as its word, so a recipe reads as
    // it was written (`"direction": "vertical"`). Numbers are read for choices too.
    enum CodingKeys: String, CodingKey { case name, parameters }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        let known = FilterCatalog.filter(named: name)?.parameters ?? []
        var values: [String: Double] = [:]
        for (key, value) in try c.decode([String: StoredValue].self, forKey: .parameters) {
            switch value {
            case .number(let v): values[key] = v
            case .word(let w):
                guard let v = known.first(where: { $0.name == key })?.value(parsing: w) else {
                    throw DecodingError.dataCorruptedError(forKey: .parameters, in: c, debugDescription: "\(name): \(key) cannot be \"\(w)\"")
                }
                values[key] = v
            }
        }
        parameters = values
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        let known = FilterCatalog.filter(named: name)?.parameters ?? []
        var stored: [String: StoredValue] = [:]
        for (key, v) in parameters {
            if let p = known.first(where: { $0.name == key }), p.choices != nil { stored[key] = .word(p.written(v)) } else { stored[key] = .number(v) }
        }
        try c.encode(stored, forKey: .parameters)
    }

    enum StoredValue: Codable {
        case number(Double), word(String)

        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let v = try? c.decode(Double.self) { self = .number(v) } else { self = .word(try c.decode(String.self)) }
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .number(let v): try c.encode(v)
            case .word(let w): try c.encode(w)
            }
        }
    }

    /// Applies this step to RGB pixels (in place, when the caller hands over its copy).
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        FilterCatalog.filter(named: name)!.init(parameters: parameters).apply(to: image)
    }
}

/// A sequence of filter steps applied in order: what camlib's adjustment data holds.
public struct FilterRecipe: Codable, Sendable, Equatable {
    public var steps: [FilterStep]

    public init(steps: [FilterStep]) {
        self.steps = steps
    }

    /// Whether every step treats every direction alike: then the recipe may run on a
    /// picture as stored, whatever its orientation (see ``ImageFilter/treatsEveryDirectionAlike``).
    public var treatsEveryDirectionAlike: Bool {
        steps.allSatisfy { FilterCatalog.filter(named: $0.name)?.treatsEveryDirectionAlike ?? false }
    }

    /// RGB pixels (3 channels) through every step, each working in place on the one
    /// before's output where it can (colour steps in one pass, geometry in one
    /// resampling: see `draw(_:on:shownIn:)`).
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        Self.draw(filters, on: image, shownIn: .up)
    }
}

/// `text` without leading and trailing spaces.
func trimmed(_ text: String) -> String {
    String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
}

public struct FilterError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A parameter a filter takes: a number, written as one; a choice of words (stored as
/// the word, held as its index); or a ratio (`4:3` or a number).
public struct FilterParameter: Sendable {
    public let name: String
    public let defaultValue: Double
    public let range: ClosedRange<Double>
    public let help: String
    /// The words a choice is written as, in index order; nil for a number.
    public let choices: [String]?
    /// Values must be multiples of this (quarter turns), when set.
    public let multipleOf: Double?
    public let format: Format

    public enum Format: Sendable { case number, ratio }

    public init(
        name: String, defaultValue: Double, range: ClosedRange<Double>, help: String, choices: [String]? = nil, multipleOf: Double? = nil,
        format: Format = .number
    ) {
        (self.name, self.defaultValue, self.range, self.help) = (name, defaultValue, range, help)
        (self.choices, self.multipleOf, self.format) = (choices, multipleOf, format)
    }

    /// A value as written on the command line.
    func value(parsing text: String) -> Double? {
        if let choices, let index = choices.firstIndex(of: text.lowercased()) { return Double(index) }
        if let number = Double(text), number.isFinite, choices == nil { return number }
        if format == .ratio {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
            if parts.count == 2, let w = parts[0], let h = parts[1], w > 0, h > 0, w.isFinite, h.isFinite { return w / h }
        }
        return nil
    }

    /// A value as it is written back: a choice's word, a ratio of small whole numbers as
    /// `w:h`, a whole number without decimals.
    public func written(_ v: Double) -> String {
        if let choices, let i = Int(exactly: v), choices.indices.contains(i) { return choices[i] }
        if format == .ratio, v > 0 {
            for h in 1...32 {
                let w = v * Double(h)
                if abs(w - w.rounded()) < 1e-9, w.rounded() >= 1 { return "\(Int(w.rounded())):\(h)" }
            }
        }
        return v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
    }
}

/// A pure function over RGB pixels: the same input and parameters give the same bytes.
public protocol ImageFilter: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var parameters: [FilterParameter] { get }
    /// `parameters` holds every parameter (defaults filled in).
    init(parameters: [String: Double])
    /// The filtered picture, the same size but for geometry (``GeometryFilter``); it may
    /// be made in `image`'s own storage.
    func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8>
    /// Whether the filter treats rows and columns, left and right, top and bottom alike,
    /// so that filtering a picture as stored (turned, mirrored) and then showing it
    /// upright looks as filtering it upright does: renders can then skip turning every
    /// movie frame upright and back. A filter with a direction (a gradient from the top,
    /// text) says no, as the default does.
    static var treatsEveryDirectionAlike: Bool { get }
    /// What is wrong with a set of parameters that are each in range (a crop past the
    /// photo's edge), or nil.
    static func check(_ parameters: [String: Double]) -> String?
}

extension ImageFilter {
    public static var treatsEveryDirectionAlike: Bool { false }
    public static func check(_ parameters: [String: Double]) -> String? { nil }
}

/// The filters camlib knows, by name.
public enum FilterCatalog {
    public static let all: [any ImageFilter.Type] = [
        ComicFilter.self, NoirFilter.self, MonoFilter.self, SepiaFilter.self, PosterizeFilter.self, VignetteFilter.self,
        // Light and colour.
        AutoFilter.self, ExposureFilter.self, HighlightsFilter.self, ShadowsFilter.self, ContrastFilter.self,
        SaturationFilter.self, VibranceFilter.self, WarmthFilter.self, TintFilter.self,
        // Geometry.
        CropFilter.self, RotateFilter.self, FlipFilter.self, StraightenFilter.self,
        // Depth of field.
        DepthFilter.self,
    ]

    public static var names: [String] { all.map { $0.name } }

    /// The light and colour adjustments, whose defaults change nothing (a slider at 0).
    public static let adjustments: Set<String> = [
        ExposureFilter.name, HighlightsFilter.name, ShadowsFilter.name, ContrastFilter.name, SaturationFilter.name,
        VibranceFilter.name, WarmthFilter.name, TintFilter.name,
    ]

    public static func filter(named name: String) -> (any ImageFilter.Type)? {
        all.first { $0.name == name }
    }
}
