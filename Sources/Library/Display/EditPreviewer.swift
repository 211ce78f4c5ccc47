import Codecs
import Filters
import Foundation
import Imaging
import Synchronization

/// The gallery editor's previews: each change of a control is the recipe applied to the
/// asset's photo at 1024 pixels, as JPEG. The decoded picture (and, once a depth step
/// asks, the depth) of the last few assets shown are kept, so a change costs the recipe
/// and the encoding, not a decode of the preview and a parse of the original.
public final class EditPreviewer: Sendable {
    public let library: PhotoLibrary
    let maxSide: Int
    let capacity: Int
    /// Most recently used last.
    private let kept = Mutex<[Inputs]>([])

    struct Inputs: Sendable {
        var asset: Int64
        /// The resource the picture was decoded from: an asset whose source changes (it
        /// cannot today) is decoded again.
        var source: Int64
        var picture: PixelBuffer<UInt8>
        /// nil until a depth step first asks.
        var depth: DepthField?
    }

    public init(library: PhotoLibrary, maxSide: Int = 1024, capacity: Int = 4) {
        self.library = library
        self.maxSide = maxSide
        self.capacity = capacity
    }

    /// `steps` applied to the asset's photo (its original, as edits start from it),
    /// `maxSide` pixels at most, as JPEG. A depth step on a photo without depth throws
    /// ``EditError``, naming the asset and file. `source`: the resource it starts from
    /// (``PhotoLibrary/editPreviewSource(asset:)``), when the caller has read it already.
    public func preview(asset: Int64, source: Int64? = nil, steps: [FilterStep]) throws -> [UInt8] {
        let recipe = FilterRecipe(steps: steps)
        var inputs = try self.inputs(asset: asset, source: source)
        if recipe.needsDepth, inputs.depth == nil {
            inputs.depth = try library.editDepth(asset: asset)
            keep(inputs)
        }
        return try JPEGCodec.encode(recipe.apply(to: inputs.picture, depth: recipe.needsDepth ? inputs.depth : nil), quality: 85)
    }

    /// The light and colour steps `auto` chooses for the asset's photo as `before` (the
    /// editor's crop and turns) leave it: what an edit's `auto` would store.
    public func autoSteps(asset: Int64, source: Int64? = nil, after before: [FilterStep]) throws -> [FilterStep] {
        // The depth of field is left out, as an edit's `auto` measures without depth.
        let kept = before.filter { $0.name != DepthFilter.name && $0.name != AutoFilter.name }
        let set = FilterRecipe(steps: kept + [try FilterStep(name: AutoFilter.name)]).settingAuto(measuring: try inputs(asset: asset, source: source).picture)
        return Array(set.steps.dropFirst(kept.count))
    }

    private func inputs(asset: Int64, source given: Int64?) throws -> Inputs {
        let source = try given ?? library.editPreviewSource(asset: asset)
        if let found = kept.withLock({ $0.first { $0.asset == asset && $0.source == source } }) {
            keep(found)
            return found
        }
        let inputs = Inputs(asset: asset, source: source, picture: try library.editPreviewPicture(asset: asset, maxSide: maxSide))
        keep(inputs)
        return inputs
    }

    /// Keeps `inputs` as the most recently used, forgetting the least recently used past
    /// `capacity`.
    private func keep(_ inputs: Inputs) {
        kept.withLock { kept in
            // What another request learnt meanwhile (the depth) is not lost.
            let depth = inputs.depth ?? kept.first { $0.asset == inputs.asset && $0.source == inputs.source }?.depth
            kept.removeAll { $0.asset == inputs.asset }
            var inputs = inputs
            inputs.depth = depth
            kept.append(inputs)
            if kept.count > capacity { kept.removeFirst(kept.count - capacity) }
        }
    }
}
