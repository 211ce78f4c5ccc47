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
                guard kv.count == 2, let value = Double(kv[1]), value.isFinite else {
                    throw FilterError("\(name): \"\(pair)\" is not key=number")
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
                throw FilterError("\(name): \(p.name)=\(value) is outside \(p.range.lowerBound)...\(p.range.upperBound)")
            }
            parameters[p.name] = value
        }
        if let unknown = given.keys.first(where: { key in !filter.parameters.contains { $0.name == key } }) {
            let known = filter.parameters.map(\.name)
            throw FilterError("\(name) has no parameter \"\(unknown)\"\(known.isEmpty ? "" : "; it takes \(known.joined(separator: ", "))")")
        }
        self.name = name
        self.parameters = parameters
    }

    public var description: String {
        parameters.isEmpty ? name : name + ":" + parameters.keys.sorted().map { "\($0)=\(format(parameters[$0]!))" }.joined(separator: ",")
    }

    private func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(v)
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
    /// before's output.
    public func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8> {
        var pixels = image
        for step in steps { pixels = step.apply(to: consume pixels) }
        return pixels
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

/// A parameter a filter takes.
public struct FilterParameter: Sendable {
    public let name: String
    public let defaultValue: Double
    public let range: ClosedRange<Double>
    public let help: String
}

/// A pure function over RGB pixels: the same input and parameters give the same bytes.
public protocol ImageFilter: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var parameters: [FilterParameter] { get }
    /// `parameters` holds every parameter (defaults filled in).
    init(parameters: [String: Double])
    /// The filtered picture, the same size; it may be made in `image`'s own storage.
    func apply(to image: consuming PixelBuffer<UInt8>) -> PixelBuffer<UInt8>
    /// Whether the filter treats rows and columns, left and right, top and bottom alike,
    /// so that filtering a picture as stored (turned, mirrored) and then showing it
    /// upright looks as filtering it upright does: renders can then skip turning every
    /// movie frame upright and back. A filter with a direction (a gradient from the top,
    /// text) says no, as the default does.
    static var treatsEveryDirectionAlike: Bool { get }
}

extension ImageFilter {
    public static var treatsEveryDirectionAlike: Bool { false }
}

/// The filters camlib knows, by name.
public enum FilterCatalog {
    public static let all: [any ImageFilter.Type] = [
        ComicFilter.self, NoirFilter.self, MonoFilter.self, SepiaFilter.self, PosterizeFilter.self, VignetteFilter.self,
        // Light and colour.
        AutoFilter.self, ExposureFilter.self, HighlightsFilter.self, ShadowsFilter.self, ContrastFilter.self,
        SaturationFilter.self, VibranceFilter.self, WarmthFilter.self, TintFilter.self,
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
