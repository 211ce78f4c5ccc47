import Library

extension AssetDescription {
    /// This asset with every text that comes from its files (names, paths, camera, lens,
    /// edit recipes, problems) made safe to print on a terminal (``Swift/String/terminalSafe(keeping:)``):
    /// a file named with escape sequences or line breaks cannot recolour the terminal or
    /// break a table. For tables and `show`; JSON and CSV escape in their own way.
    var terminalSafe: AssetDescription {
        var a = self
        a.capturedAt = a.capturedAt?.terminalSafe()
        a.make = a.make?.terminalSafe()
        a.model = a.model?.terminalSafe()
        a.lensModel = a.lensModel?.terminalSafe()
        a.contentIdentifier = a.contentIdentifier?.terminalSafe()
        a.albums = a.albums.map { $0.terminalSafe() }
        a.keywords = a.keywords.map { $0.terminalSafe() }
        if var place = a.place {
            place.city = place.city?.terminalSafe()
            place.region = place.region?.terminalSafe()
            (place.country, place.countryCode) = (place.country.terminalSafe(), place.countryCode.terminalSafe())
            a.place = place
        }
        for i in a.resources.indices {
            a.resources[i].path = a.resources[i].path.terminalSafe()
            a.resources[i].originalName = a.resources[i].originalName?.terminalSafe()
            a.resources[i].mime = a.resources[i].mime.terminalSafe()
        }
        for i in a.aux.indices {
            a.aux[i].path = a.aux[i].path?.terminalSafe()
            a.aux[i].problem = a.aux[i].problem?.terminalSafe()
            a.aux[i].source = a.aux[i].source.terminalSafe()
        }
        for i in a.adjustments.indices {
            a.adjustments[i].formatIdentifier = a.adjustments[i].formatIdentifier.terminalSafe()
            a.adjustments[i].formatVersion = a.adjustments[i].formatVersion.terminalSafe()
            a.adjustments[i].data = a.adjustments[i].data.terminalSafe()
        }
        return a
    }
}
