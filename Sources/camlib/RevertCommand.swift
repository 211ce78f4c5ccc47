import ArgumentParser
import Foundation
import Library

struct RevertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Make assets' originals their current versions again (their edit histories stay).",
        discussion: Help.reflow(
            """
            Examples:
              camlib revert 12
              camlib revert 12 14 15
              camlib revert --query --kind live --since 2025-05
            """))

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String] = []

    @Flag(name: .long, help: "Revert the assets the query options select (all assets when none is given).")
    var query = false

    @OptionGroup(title: "Query options (with --query)") var filters: QueryFilters

    @OptionGroup var output: JSONOutput<RevertCommand>

    struct Output: Encodable {
        var asset: Int64
        var reverted: Bool
        /// The files of the asset's current version, as `show --json` lists them.
        var resources: [String]
    }

    func validate() throws {
        if assets.isEmpty && !query { throw ValidationError("name the assets to revert, or select them with --query") }
        if !assets.isEmpty && query { throw ValidationError("name assets or use --query, not both") }
    }

    func run() throws {
        let library = try libraryOptions.open(.write)
        if assets.count == 1 && !query {
            let id = try library.findAsset(assets[0])
            let output = try revert(id, in: library)
            if self.output.json { return print(try Terminal.json(output)) }
            return print(output.reverted ? "Asset \(id): the original is current again." : "Asset \(id): the original already is current.")
        }
        var ids: [Int64] = []
        var problems = 0
        if query {
            ids = try library.assetIDs(matching: filters.makeQuery())
        } else {
            for reference in assets {
                do { ids.append(try library.findAsset(reference)) } catch {
                    Terminal.error("camlib: \(reference): \(error)")
                    problems += 1
                }
            }
        }
        var outputs: [Output] = []
        for id in ids {
            do { outputs.append(try revert(id, in: library)) } catch {
                Terminal.error("camlib: asset \(id): \(error)")
                problems += 1
            }
        }
        if output.json {
            print(try Terminal.json(outputs))
        } else {
            let reverted = outputs.filter(\.reverted).count
            let already = outputs.count - reverted
            print("Reverted \(reverted) of \(counted(ids.count, "asset"))" + (already > 0 ? "; \(already) already showed \(already == 1 ? "its original" : "their originals")." : "."))
        }
        if problems > 0 { throw ExitCode(ExitStatus.partialFailure) }
    }

    func revert(_ id: Int64, in library: PhotoLibrary) throws -> Output {
        let reverted = try library.revert(asset: id)
        let files = output.json ? try library.describe([id]).first?.resources.map(\.path) ?? [] : []
        return Output(asset: id, reverted: reverted, resources: files)
    }
}

extension RevertCommand: JSONDescribed {
    static let jsonFields = "{asset, reverted (false when the original already was current), resources: the current files}; for several assets or --query, an array of them"
}
