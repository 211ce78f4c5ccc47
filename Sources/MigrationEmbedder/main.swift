import Foundation

// Writes a Swift file holding every migration's name and SQL, in order.
// Usage: MigrationEmbedder OUTPUT.swift MIGRATIONS_FOLDER ENUM_NAME [--baseline]
// With --baseline (migrations/postgres/), the first file is a baseline standing for the
// migrations up to its number, and the numbers go on from there.
// Lists the folder itself, so a migration added after the build plan was made is
// still picked up (the plugin names the folder as an input).
// Refuses names that are not NNNN_name.sql and numbers that skip or repeat, so a
// mistake in migrations/ stops the build instead of reaching a user's catalog.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: MigrationEmbedder: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
let positional = arguments.filter { !$0.hasPrefix("--") }
guard positional.count == 3 else { fail("usage: MigrationEmbedder OUTPUT.swift MIGRATIONS_FOLDER ENUM_NAME [--baseline]") }
let (output, folder, enumName) = (positional[0], positional[1], positional[2])
let baseline = arguments.contains("--baseline")
guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { fail("cannot list \(folder)") }
let inputs = names.filter { $0.hasSuffix(".sql") }.sorted().map { URL(fileURLWithPath: folder).appendingPathComponent($0) }

var entries: [String] = []
var first = 1
for (index, url) in inputs.enumerated() {
    let name = url.deletingPathExtension().lastPathComponent
    let parts = name.split(separator: "_", maxSplits: 1)
    guard parts.count == 2, parts[0].count == 4, let number = Int(parts[0]), parts[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
    else { fail("\(url.lastPathComponent): migration files are named NNNN_verb_object.sql") }
    if index == 0, baseline { first = number }
    guard number == first + index else { fail("\(url.lastPathComponent): expected migration number \(first + index)") }
    guard let sql = try? String(contentsOf: url, encoding: .utf8) else { fail("cannot read \(url.path)") }
    // A raw string delimiter longer than any run of '#' after a quote in the SQL.
    var hashes = "#"
    while sql.contains("\"" + hashes) { hashes += "#" }
    entries.append("        (\"\(name)\", \(hashes)\"\"\"\n\(sql)\n\"\"\"\(hashes)),")
}

let source = """
    // Generated at build time by the EmbedMigrations plugin from \(folder). Do not edit.
    enum \(enumName) {
        static let all: [(name: String, sql: String)] = [
    \(entries.joined(separator: "\n"))
        ]
    }

    """
do {
    try source.write(toFile: output, atomically: true, encoding: .utf8)
} catch {
    fail("cannot write \(output): \(error)")
}
