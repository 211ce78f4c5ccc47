import Filters
import Imaging

/// What a render by tiles or bands draws of a stored picture: the output's size, the
/// orientation it is shown in, the steps drawn over it, and where its pixels come from
/// (``StillRenderer/tiledCut(_:width:height:shownIn:)`` says when there is one).
struct TiledCut {
    enum Source {
        /// The output is the stored picture's rectangle from (x, y), copied as it is.
        case rectangle(x: Int, y: Int)
        /// The output is resampled from the stored picture (a straighten).
        case resampled(GeometryPlacement)
    }
    var width: Int, height: Int
    var orientation: EXIFOrientation
    var rest: FilterRecipe
    var source: Source

    /// The output's width×height rectangle from (x, y), before `rest`, from a stored
    /// picture of `sourceWidth`×`sourceHeight` whose rectangles `read` gives.
    func region<T: RegionSample>(
        x: Int, y: Int, width: Int, height: Int, sourceWidth: Int, sourceHeight: Int, read: (PixelRegion) throws -> PixelBuffer<T>
    ) throws -> PixelBuffer<T> {
        switch source {
        case .rectangle(let left, let top):
            return try read(PixelRegion(x: left + x, y: top + y, width: width, height: height))
        case .resampled(let placement):
            let part = placement.part(x: x, y: y, width: width, height: height)
            let needed = part.sourceRegion(width: sourceWidth, height: sourceHeight)
            guard needed.width > 0, needed.height > 0 else {
                throw MediaAnalyzer.Failure(reason: "internal error: the output's rectangle at \(x),\(y) reads nothing of the picture")
            }
            return T.placed(try read(needed), by: part.within(needed))
        }
    }
}
