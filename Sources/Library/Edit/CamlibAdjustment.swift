import Containers
import Filters
import Foundation

/// camlib's own adjustment: filter steps applied to the original, and auxiliary images
/// attached with `camlib aux attach`. Stored as JSON with sorted keys: `{"steps": […]}`
/// (format version 1, a `FilterRecipe` of the Filters module), plus `"attachments"` when there are any
/// (format version 2).
public struct CamlibRecipe: Codable, Sendable, Equatable {
    public var steps: [FilterStep]
    public var attachments: [Attachment]

    /// An image attached as an auxiliary item, as the user gave it.
    public struct Attachment: Codable, Sendable, Equatable {
        public var type: AuxiliaryImageType
        /// The image: a one-channel PNG (8 or 16 bits), base64.
        public var png: String
        /// Attached losslessly, or lossy at `quality`.
        public var lossless: Bool
        public var quality: Int
        /// A depth map's distances, in metres, for its smallest and largest samples.
        public var zNear: Double?
        public var zFar: Double?
    }

    public init(steps: [FilterStep], attachments: [Attachment] = []) {
        (self.steps, self.attachments) = (steps, attachments)
    }

    public var filters: FilterRecipe { FilterRecipe(steps: steps) }

    enum CodingKeys: String, CodingKey { case steps, attachments }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        steps = try c.decode([FilterStep].self, forKey: .steps)
        attachments = try c.decodeIfPresent([Attachment].self, forKey: .attachments) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(steps, forKey: .steps)
        if !attachments.isEmpty { try c.encode(attachments, forKey: .attachments) }
    }
}

/// camlib's own adjustment format: a ``CamlibRecipe`` as JSON with sorted keys.
public enum CamlibAdjustment {
    public static let formatIdentifier = "org.camlib.filters"
    /// 1: filter steps; 2: filter steps and attached auxiliary images.
    public static let formatVersions = ["1", "2"]

    public static func formatVersion(of recipe: CamlibRecipe) -> String { recipe.attachments.isEmpty ? "1" : "2" }

    public static func data(_ recipe: CamlibRecipe) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(recipe), as: UTF8.self)
    }

    /// The recipe, when camlib can handle this adjustment (PhotoKit's
    /// `canHandleAdjustmentData`): its own identifier and a version it knows.
    public static func recipe(formatIdentifier: String, formatVersion: String, data: String) -> CamlibRecipe? {
        guard formatIdentifier == Self.formatIdentifier, formatVersions.contains(formatVersion) else { return nil }
        return try? JSONDecoder().decode(CamlibRecipe.self, from: Data(data.utf8))
    }

    /// The recipe of a catalog `adjustment` row, when it is camlib's.
    static func recipe(_ adjustment: AdjustmentRecord) -> CamlibRecipe? {
        recipe(formatIdentifier: adjustment.formatIdentifier, formatVersion: adjustment.formatVersion, data: adjustment.data)
    }
}
