import Imaging

extension FilterRecipe {
    /// The recipe over a picture as stored, shown in `orientation`: the filtered picture,
    /// still as stored. Filters look at a picture upright; when every step treats every
    /// direction alike (``treatsEveryDirectionAlike``), the stored picture is filtered as
    /// it is, without turning it upright and back (two more passes over every sample of a
    /// still and of every movie frame; the turns are made in the picture's own storage).
    /// When only the geometry steps do not, they are folded into the orientation: each run
    /// of them is one resampling of the stored picture, from stored to stored, turning it
    /// nowhere else.
    public func apply(toStored image: consuming PixelBuffer<UInt8>, shownIn orientation: EXIFOrientation) -> PixelBuffer<UInt8> {
        let filters = self.filters
        guard orientation == .up || filters.allSatisfy({ $0 is any GeometryFilter || type(of: $0).treatsEveryDirectionAlike }) else {
            let upright = (consume image).reoriented(orientation)
            return Self.draw(filters, on: upright, shownIn: .up).reoriented(orientation.inverse)
        }
        return Self.draw(filters, on: image, shownIn: orientation)
    }

    /// The steps' filters, in order.
    var filters: [any ImageFilter] {
        steps.map { FilterCatalog.filter(named: $0.name)!.init(parameters: $0.parameters) }
    }

    /// `filters` over a picture as stored, shown in `orientation` (every step but the
    /// geometry treats every direction alike, or the picture is upright). Each run of
    /// colour steps is one ``ColourPass``; each run of geometry steps one resampling, the
    /// orientation folded in; a colour run just before geometry is drawn over the pixels
    /// the geometry reads alone (a crop's colours are not worked on and thrown away).
    static func draw(_ filters: [any ImageFilter], on image: consuming PixelBuffer<UInt8>, shownIn orientation: EXIFOrientation) -> PixelBuffer<UInt8> {
        var pixels = image
        var i = 0
        while i < filters.count {
            var colours = ColourPass()
            while i < filters.count, colours.append(filters[i]) { i += 1 }
            guard i < filters.count, filters[i] is any GeometryFilter else {
                if !colours.isEmpty { pixels = colours.apply(to: consume pixels) }
                if i < filters.count {
                    pixels = filters[i].apply(to: consume pixels)
                    i += 1
                }
                continue
            }
            var placement = GeometryPlacement.run(of: filters, from: &i, width: pixels.width, height: pixels.height, shownIn: orientation)
            if !colours.isEmpty {
                let region = placement.sourceRegion(width: pixels.width, height: pixels.height)
                if region.width >= 2, region.height >= 2, region.width * region.height * 10 < pixels.width * pixels.height * 9 {
                    pixels = colours.apply(to: (consume pixels).cropped(x: region.x, y: region.y, width: region.width, height: region.height))
                    placement = placement.within(region)
                } else {
                    pixels = colours.apply(to: consume pixels)
                }
            }
            pixels = placement.apply(reusing: consume pixels)
        }
        return pixels
    }
}

extension GeometryPlacement {
    /// The run of geometry steps of `filters` from `index` on, over a width×height
    /// picture as stored, shown in `orientation`: one placement from stored to stored,
    /// between the orientation and its inverse (or, given `storedFor`, the inverse of
    /// that: the output is stored to be shown in it). `index` is left after the run.
    static func run(
        of filters: [any ImageFilter], from index: inout Int, width: Int, height: Int, shownIn orientation: EXIFOrientation,
        storedFor output: EXIFOrientation? = nil
    ) -> GeometryPlacement {
        var placement = orienting(orientation, width: width, height: height)
        while index < filters.count, let geometry = filters[index] as? any GeometryFilter {
            placement = geometry.placement(width: placement.width, height: placement.height).after(placement)
            index += 1
        }
        return orienting((output ?? orientation).inverse, width: placement.width, height: placement.height).after(placement)
    }

    /// What `applying(orientation)` does to a width×height picture: its mirror, then its
    /// quarter turns.
    static func orienting(_ orientation: EXIFOrientation, width: Int, height: Int) -> GeometryPlacement {
        var placement = GeometryPlacement.identity(width: width, height: height)
        if orientation.isMirrored { placement = FlipFilter(parameters: ["direction": 0]).placement(width: width, height: height) }
        let turn = RotateFilter(parameters: ["degrees": Double(90 * orientation.quarterTurnsCW)])
        return turn.placement(width: placement.width, height: placement.height).after(placement)
    }
}
