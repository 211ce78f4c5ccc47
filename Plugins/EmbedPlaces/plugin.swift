import Foundation
import PackagePlugin

/// Compiles data/places/places.tsv.gz (GeoNames' places, made by data/places/make_places.py)
/// into the Library module, so reverse geocoding works offline and the installed binary
/// needs nothing beside it.
@main
struct EmbedPlaces: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = context.package.directoryURL.appending(path: "data/places/places.tsv.gz")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPlaces.swift")
        return [
            .buildCommand(
                displayName: "Embedding the places of data/places/",
                executable: try context.tool(named: "PlaceEmbedder").url,
                arguments: [output.path, input.path],
                inputFiles: [input],
                outputFiles: [output])
        ]
    }
}
