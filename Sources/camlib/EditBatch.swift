import Codecs
import ArgumentParser
import Filters
import Foundation
import Library

/// `camlib edit` on several assets, or on a query: one render job per asset, made
/// together as a batch and run by worker processes, with progress over the batch.
struct EditBatch {
    let command: EditCommand

    struct Output: Encodable {
        var batch: String?
        var recipe: EditCommand.Recipe
        var dryRun: Bool
        var assets: [Outcome]
    }

    struct Outcome: Encodable {
        var asset: Int64
        /// The name of its still or movie, as imported.
        var name: String?
        var job: Int64?
        /// queued (with --queue), done, failed, or waiting (interrupted).
        var state: String?
        var error: String?
        var warnings: [String]?
    }

    func run() throws {
        let library = try command.libraryOptions.open(command.dryRun ? .read : .write)
        let extending = !command.addFilter.isEmpty
        let steps = extending ? command.addFilter : command.filter
        let recipe = EditCommand.Recipe(steps: steps, attachments: [])
        var unknown = 0
        let ids: [Int64]
        if command.query {
            ids = try library.assetIDs(matching: command.filters.makeQuery())
        } else {
            var found: [Int64] = []
            for reference in command.assets {
                do { found.append(try library.findAsset(reference)) } catch {
                    Terminal.error("camlib: \(reference): \(error)")
                    unknown += 1
                }
            }
            ids = found
        }
        let names = try Dictionary(uniqueKeysWithValues: library.describe(ids).map { ($0.id, $0.primaryOriginal?.originalName) })
        var outcomes = ids.map { Outcome(asset: $0, name: names[$0] ?? nil) }
        let recipeText = steps.map(\.description).joined(separator: " → ")
        if ids.isEmpty && !command.output.json {
            print("No assets to edit.")
            if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
            return
        }
        if command.dryRun {
            if command.output.json { return print(try Terminal.json(Output(recipe: recipe, dryRun: true, assets: outcomes))) }
            for o in outcomes { print("  asset \(o.asset)" + (o.name.map { " (\($0.terminalSafe()))" } ?? "")) }
            print("Would edit \(counted(ids.count, "asset")) with \(recipeText); nothing was changed (--dry-run).")
            if unknown > 0 { throw ExitCode(ExitStatus.partialFailure) }
            return
        }
        let batch = "edit-\(UUID().uuidString.lowercased())"
        let arguments = RenderJobArguments(steps: steps, extending: extending).json
        let jobs = try library.enqueue(
            ids.map { NewJob(kind: .render, asset: $0, arguments: arguments, dedupeKey: "render:\($0)", priority: -5) }, batch: batch)
        for i in outcomes.indices { outcomes[i].job = jobs[i] }
        var interrupted = false
        if command.queue {
            for i in outcomes.indices { outcomes[i].state = "queued" }
        } else {
            interrupted = try render(batch, total: ids.count, in: library)
            for i in outcomes.indices {
                guard let job = try library.job(jobs[i]) else { continue }
                switch job.state {
                case .done:
                    outcomes[i].state = "done"
                    outcomes[i].warnings = RenderJobResult(job.result)?.warnings
                case .failed, .cancelled:
                    (outcomes[i].state, outcomes[i].error) = ("failed", job.lastError ?? "the render failed")
                case .available, .running:
                    outcomes[i].state = "waiting"
                }
            }
        }
        if command.output.json {
            print(try Terminal.json(Output(batch: batch, recipe: recipe, dryRun: false, assets: outcomes)))
        } else if command.queue {
            print("\(counted(ids.count, "asset")): \(recipeText) queued as \(counted(ids.count, "render job")); `camlib worker` renders them (`camlib jobs`).")
        } else {
            let done = outcomes.filter { $0.state == "done" }.count
            print("Edited \(done) of \(counted(ids.count, "asset")) with \(recipeText).")
            let waiting = outcomes.filter { $0.state == "waiting" }.count
            if waiting > 0 { print("Interrupted: \(counted(waiting, "render")) wait for `camlib worker` (`camlib jobs`).") }
        }
        for o in outcomes {
            if let error = o.error { Terminal.error("camlib: \(error)") }
            for w in o.warnings ?? [] { Terminal.error("camlib: asset \(o.asset): \(w)") }
        }
        if interrupted { throw ExitCode(ExitStatus.interrupted) }
        if unknown > 0 || outcomes.contains(where: { $0.state == "failed" }) { throw ExitCode(ExitStatus.partialFailure) }
    }

    /// Runs the batch's render jobs in worker processes with a progress bar; true when
    /// interrupted (Ctrl-C), which leaves the rest queued.
    private func render(_ batch: String, total: Int, in library: PhotoLibrary) throws -> Bool {
        let pool = RunningPool()
        let signals = StopSignals { pool.stop() }
        defer { withExtendedLifetime(signals) {} }
        let workers = WorkerPool(
            library: library,
            options: .init(processes: command.jobs ?? Cores.usable, kinds: [.render], batch: batch, untilIdle: true))
        return pool.runToTheEnd(workers, total: total, unit: "assets", what: "the renders")
    }
}
