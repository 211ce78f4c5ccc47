import Foundation
import PackagePlugin

/// Compiles `migrations/NNNN_name.sql` (SQLite) and `migrations/postgres/NNNN_name.sql`
/// (PostgreSQL) into the Library module, so the schema has one home (the SQL files) and
/// the installed binary needs nothing beside it.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let sqlite = context.package.directoryURL.appending(path: "migrations")
        return [
            try embed(sqlite, as: "EmbeddedMigrations", context: context),
            try embed(sqlite.appending(path: "postgres"), as: "EmbeddedPostgresMigrations", baseline: true, context: context),
        ]
    }

    private func embed(_ folder: URL, as name: String, baseline: Bool = false, context: PluginContext) throws -> Command {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(name).swift")
        return .buildCommand(
            displayName: "Embedding the SQL migrations of \(folder.lastPathComponent)/",
            executable: try context.tool(named: "MigrationEmbedder").url,
            arguments: [output.path, folder.path, name] + (baseline ? ["--baseline"] : []),
            // The folder too: adding a migration changes it and reruns the embedder.
            inputFiles: files + [folder],
            outputFiles: [output])
    }
}
