import Codecs
import Foundation

extension PhotoLibrary {
    /// A render of camlib's own edit, missing or damaged, rendered again: its
    /// adjustment's recipe applied to the original it was made from, by the same renderers
    /// as `camlib edit` (a Live Photo's still and movie with their shared content
    /// identifier, a Motion Photo's still with its movie inside). It goes back to its place
    /// under `derived/renders/`; its row records the new bytes when the encoder did not
    /// make the same ones. `fence` runs in the transaction that records it.
    func rerender(_ file: CatalogFile, dryRun: Bool, fence: ((any CatalogConnection) throws -> Void)? = nil) throws -> RepairReport.Action {
        let asset = file.assetId
        func notRepaired(_ why: String) -> RepairReport.Action {
            .init(kind: .notRepaired, asset: asset, path: absolute(file.path).path, detail: "asset \(asset): the \(file.role) \(file.path) is missing or damaged; \(why)")
        }
        let (adjustment, original) = try catalog.read { db in
            (try AdjustmentRenderRecord.adjustment(rendering: file.id, db), try file.madeFrom.flatMap { try ResourceRecord.find($0, db) })
        }
        guard let adjustment, let recipe = CamlibAdjustment.recipe(adjustment) else {
            return notRepaired("no camlib recipe in the catalog names it, so it cannot be rendered again")
        }
        guard recipe.attachments.isEmpty else {
            // The attached images came from a file outside the library (`aux attach --from`).
            return notRepaired(
                "its edit carries images attached with `camlib aux attach`, which the library does not keep apart from the render; `camlib revert \(asset)`, then `camlib aux attach` again, makes a new one")
        }
        guard let original, let originalURL = layout.confined(original.path), (try? FileReading.sha256(of: originalURL.path)) == original.sha256 else {
            return notRepaired("the original it is rendered from is missing or damaged itself")
        }
        guard let destination = layout.confined(file.path) else { return notRepaired("its path leads out of the library") }
        let steps = recipe.steps.map(\.name).joined(separator: " + ")
        if dryRun {
            return .init(kind: .rebuilt, asset: asset, path: destination.path,
                         detail: "asset \(asset): \(file.path) would be rendered again from \(original.path) (\(steps))")
        }
        guard let description = try describe([asset]).first else { return notRepaired("the asset is not in the catalog") }
        // A Live Photo's pair shares a content identifier made from the original's and the recipe.
        let identifier = try RenderIdentifier.pair(for: description, recipe: recipe)
        let staged: AtomicFile.Temporary
        do {
            if file.role == ResourceRole.renderedVideo.rawValue {
                staged = try MovieRenderer.render(path: originalURL.path, recipe: recipe.filters.withoutDepth, scratch: temporary, identifier: identifier)
            } else {
                // A Motion Photo's render holds its movie, rendered too.
                let embedded = try description.kind == .motion
                    ? description.resources.first { $0.role == .pairedVideo }.map { movie -> [UInt8] in
                        let file = try MovieRenderer.render(path: movie.path, recipe: recipe.filters.withoutDepth, scratch: temporary)
                        defer { unlink(file.url.path) }
                        return try [UInt8](Data(contentsOf: file.url))
                    }
                    : nil
                let render = try StillRenderer.render(path: originalURL.path, recipe: recipe.filters, embeddedMovie: embedded, identifier: identifier)
                staged = try AtomicFile.writeTemporary(render.bytes, in: temporary, readOnly: true)
            }
        } catch {
            return notRepaired("rendering it again from \(original.path) failed: \(MediaAnalyzer.describe(error))")
        }
        defer { unlink(staged.url.path) }
        try catalog.write { db in
            try fence?(db)
            _ = try publishDerived(staged.url, to: destination)
            if staged.sha256 != file.sha256 || staged.bytes != file.bytes {
                try CatalogFile.setBytes(file.source, id: file.id, sha256: staged.sha256, bytes: staged.bytes, crc32: staged.crc32, db)
            }
        }
        let same = staged.sha256 == file.sha256 ? "the same bytes as before" : "new bytes, recorded"
        return .init(kind: .rebuilt, asset: asset, path: destination.path,
                     detail: "asset \(asset): \(file.path) rendered again from \(original.path) by its recipe, \(steps) (\(same))")
    }
}
