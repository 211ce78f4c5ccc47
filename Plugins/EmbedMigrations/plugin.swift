import Foundation
import PackagePlugin

/// Compiles `migrations/NNNN_name.sql` into the Library module, so the schema has one
/// home (the SQL files) and the installed binary needs nothing beside it.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "migrations")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding the SQL migrations of migrations/",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path, folder.path],
                // The folder too: adding a migration changes it and reruns the embedder.
                inputFiles: files + [folder],
                outputFiles: [output])
        ]
    }
}
