import Filters

/// Where a new edit of an asset starts when it resumes the current version, as PhotoKit's
/// `canHandle(_:)` decides: camlib's own steps, Apple's edit turned into camlib's steps, or
/// nothing to resume.
public enum EditStart: Sendable, Equatable {
    /// The original is current.
    case original
    case camlib([FilterStep])
    /// Apple's edit (an `.AAE`), every step of it reproduced by camlib's.
    case apple([FilterStep])
    /// Apple's edit with steps camlib cannot reproduce (named): it stays Apple's render.
    case appleUnreproduced([String])
    /// An edit of another format, or Apple data that cannot be read: why, as words that
    /// follow "the current edit" ("is … 1.0, which camlib cannot resume").
    case foreign(String)

    /// Where an edit of `current` (the asset's current adjustment, if any) starts.
    init(_ current: AdjustmentRecord?) {
        guard let current else {
            self = .original
            return
        }
        if let recipe = CamlibAdjustment.recipe(current) {
            self = .camlib(recipe.steps)
        } else if current.formatIdentifier == AppleRecipe.formatIdentifier {
            do {
                let apple = try AppleRecipe(json: current.data)
                self = apple.unreproduced.isEmpty ? .apple(apple.steps) : .appleUnreproduced(apple.unreproduced)
            } catch {
                self = .foreign("is Apple's, and its data cannot be read (\(error))")
            }
        } else {
            self = .foreign("is \(current.formatIdentifier) \(current.formatVersion), which camlib cannot resume")
        }
    }

    /// The steps an edit resumes, when it can.
    public var steps: [FilterStep]? {
        switch self {
        case .original: []
        case .camlib(let steps), .apple(let steps): steps
        case .appleUnreproduced, .foreign: nil
        }
    }
}

extension PhotoLibrary {
    /// Where an edit of `asset` resuming its current version starts (the gallery's editor
    /// shows these steps).
    public func editStart(asset: Int64) throws -> EditStart {
        try catalog.read { db in
            guard try AssetRecord.exists(asset, db) else { throw LibraryError.assetNotFound("with id \(asset)") }
            return EditStart(try AdjustmentRecord.current(of: asset, db))
        }
    }
}
