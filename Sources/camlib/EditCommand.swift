import ArgumentParser
import Filters
import Foundation
import Library

struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Apply filters to a photo, Live Photo or video, non-destructively.",
        discussion: Help.reflow(
            """
            Each edit is recorded as an adjustment (format org.camlib.filters, the recipe
            as JSON; version 2 when it carries images `camlib aux attach` added, which
            every edit keeps until a revert) and rendered from the original, never from an earlier
            render; the render becomes the asset's current version. The original is never
            touched: `camlib revert ASSET` makes it current again, and the history stays.

            Filters and adjustments (name:key=value,... to set parameters):
            \(FilterCatalog.all.map { f in
                "  \(f.name): \(f.summary)" + (f.parameters.isEmpty ? "" : "\n" + f.parameters.map { "      \($0.name)=\($0.written($0.defaultValue)) (\($0.choices?.joined(separator: " or ") ?? "\($0.written($0.range.lowerBound)) to \($0.written($0.range.upperBound))")): \($0.help)" }.joined(separator: "\n"))
            }.joined(separator: "\n"))

            Examples:
              camlib edit 12 --filter comic
              camlib edit 12 --filter noir --filter vignette:strength=0.4
              camlib edit 12 --filter exposure:ev=0.5 --filter shadows:amount=0.3
              camlib edit 12 --filter auto      (stores the adjustments auto chose)
              camlib edit 12 --filter crop:aspect=4:3 --filter straighten:degrees=2
              camlib edit 12 --filter depth:aperture=1.4,x=0.5,y=0.4   (Portrait photos)
              camlib edit 12 --add-filter vignette      (extends the current edit)
              camlib edit 12 --from-apple      (Apple's black and white and depth as camlib steps)
              camlib edit 12 --filter comic --queue     (a job for `camlib worker`)
              camlib edit 12 14 15 --filter sepia       (a batch)
              camlib edit --query --kind live --since 2025-05 --filter comic

            A batch (several assets, or --query) is a render job per asset, run by worker
            processes (--jobs at once, one per core by default) with progress over the
            whole batch; an asset that fails is named with its file and the cause while the
            others go on (exit status 2). --dry-run lists what would be edited. With
            --queue the jobs are left to `camlib worker` or `camlib serve`.

            HEIC stays HEIC (orientation, Exif, colour profile, auxiliary images and
            gain map kept); AVIF stays AVIF; JPEG stays JPEG (with its MPF images and a new
            Exif thumbnail); PNG stays PNG (with its transparency). A render takes no more
            bytes than its original: the encoder's quality is fitted to the original's
            size. A Live Photo's movie is rendered too, every frame, keeping its sound and
            timing, and the rendered pair gets a content identifier of its own; a Motion
            Photo's movie too, put back inside the still. A video's every frame is
            rendered, streamed to disk, keeping its sound, timing, orientation and keys.
            Crop, rotate, flip and straighten reshape the still, its depth, disparity and
            mattes at their own sizes (so they still line up) and every frame of its
            movie, in fractions of the photo as displayed. The depth step blurs a photo
            that carries depth by its depth map; a movie's frames keep their focus.

            An Apple Photos edit (from an .AAE) is resumed by --add-filter or --from-apple
            when camlib reproduces each of its adjustments (black and white, depth);
            otherwise it stays Apple's render, and the error names what camlib cannot do.
            """))

    static func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("Asset ids or paths of their files.", valueName: "asset"))
    var assets: [String] = []

    @Flag(name: .long, help: "Edit the assets the query options select (all assets when none is given).")
    var query = false

    @OptionGroup(title: "Query options (with --query)") var filters: QueryFilters

    // Parsed once, as ArgumentParser reads them: a wrong one is a usage error saying why.
    @Option(
        name: .long, help: ArgumentHelp("A filter, applied in order from the original; repeatable.", valueName: "name[:key=value,...]"),
        transform: FilterStep.init(parsing:))
    var filter: [FilterStep] = []

    @Option(
        name: .customLong("add-filter"), help: ArgumentHelp("A filter appended to the current edit's recipe; repeatable.", valueName: "name[:key=value,...]"),
        transform: FilterStep.init(parsing:))
    var addFilter: [FilterStep] = []

    @Flag(
        name: .customLong("from-apple"),
        help: "Turn the current Apple Photos edit into camlib's steps that reproduce it (black and white, depth), rendered; --add-filter goes on from them too.")
    var fromApple = false

    @Flag(help: "Record the edit as a render job and return at once; camlib worker or camlib serve renders it.")
    var queue = false

    @Flag(name: .customLong("dry-run"), help: "List the assets a batch would edit, and change nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Renders run at once in a batch, each in a worker process (default: one per core).", valueName: "n"))
    var jobs: Int?

    @OptionGroup var output: JSONOutput<EditCommand>

    /// One asset named: rendered here, in a child of its own, with its progress.
    var isSingle: Bool { assets.count == 1 && !query }

    func validate() throws {
        if assets.isEmpty && !query { throw ValidationError("name the assets to edit, or select them with --query") }
        if !assets.isEmpty && query { throw ValidationError("name assets or use --query, not both") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs \(jobs): give 1 or more") }
        if filter.isEmpty && addFilter.isEmpty && !fromApple {
            throw ValidationError("give --filter NAME (or --add-filter NAME to extend the current edit, or --from-apple)")
        }
        if fromApple && !filter.isEmpty { throw ValidationError("--from-apple goes on from Apple's edit: use --add-filter, not --filter") }
        if !filter.isEmpty && !addFilter.isEmpty { throw ValidationError("use --filter (start from the original) or --add-filter (extend), not both") }
    }

    struct Output: Encodable {
        var asset: Int64
        var adjustmentId: Int64
        var recipe: Recipe
        var renders: [String]
        var warnings: [String]
    }

    /// The recipe as data: each filter with every parameter, and the types of the images
    /// `camlib aux attach` added (their pixels stay in the catalog).
    struct Recipe: Encodable {
        var steps: [FilterStep]
        var attachments: [String]
    }

    /// CPU seconds an edit may take in its child: a 200-megapixel comic takes about a
    /// minute, a long 4K video far more; a decoder spinning on a hostile file is stopped.
    static let cpuSeconds: rlim_t = 4 * 3600

    func run() throws {
        if !isSingle || dryRun { return try EditBatch(command: self).run() }
        let asset = assets[0]
        if queue { return try runQueued() }
        // The edit runs in a child of its own, so a file that crashes a decoder ends with
        // a clear error naming it.
        try Isolation.runInChild(describing: Int64(asset) != nil ? "asset \(asset)" : asset, cpuSeconds: Self.cpuSeconds)
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        if let trashed = try library.describe([id]).first?.trashedAt { throw LibraryError.inTrash(asset: id, trashedAt: trashed) }
        let extending = !addFilter.isEmpty || fromApple
        let steps = extending ? addFilter : filter
        let (job, outcome) = try render(library, id, steps, extending)
        if Terminal.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        guard outcome.state == .done, let result = RenderJobResult(outcome.result), let adjustment = result.adjustmentId else {
            Terminal.error("camlib: \(outcome.lastError ?? "the render of asset \(id) ended \(outcome.state.rawValue) (job \(job))")")
            throw ExitCode.failure
        }
        // The recipe as recorded: with `--add-filter`, the current edit's steps and these.
        let made = try library.describe([id]).first?.adjustments.first { $0.current }
        let recipe = made.flatMap { CamlibAdjustment.recipe(formatIdentifier: $0.formatIdentifier, formatVersion: $0.formatVersion, data: $0.data) }
        let recipeSteps = recipe?.steps ?? steps
        if output.json {
            let data = Recipe(steps: recipeSteps, attachments: recipe?.attachments.map(\.type.rawValue) ?? [])
            print(try Terminal.json(Output(asset: id, adjustmentId: adjustment, recipe: data, renders: result.renders ?? [], warnings: result.warnings ?? [])))
        } else {
            print("Asset \(id): \(recipeSteps.map(\.description).joined(separator: " → "))")
            for r in result.renders ?? [] { print("  rendered \(r)") }
        }
        for w in result.warnings ?? [] { Terminal.error("camlib: asset \(id): \(w)") }
    }

    /// The edit as a render job this process runs itself (a job row first, so that it
    /// is never lost half-way), with its progress on a terminal: the still, then the
    /// movie's frames. A worker beside it (`camlib serve`'s) may take the job first: then
    /// this waits for it. Ctrl-C hands the job back, queued for `camlib worker`.
    func render(_ library: PhotoLibrary, _ id: Int64, _ steps: [FilterStep], _ extending: Bool) throws -> (Int64, Job) {
        let batch = "edit-\(UUID().uuidString.lowercased())"
        let job = try library.enqueue(
            [
                NewJob(
                    kind: .render, asset: id, arguments: RenderJobArguments(steps: steps, extending: extending).json, dedupeKey: "render:\(id)",
                    priority: -10)
            ], batch: batch)[0]
        let worker = JobWorker(library: library, options: .init(kinds: [.render], batch: batch, untilIdle: true))
        let signals = StopSignals {
            if let lease = worker.runningJob { try? library.handBackJob(lease) }
            Terminal.error("\ncamlib: interrupted: the edit of asset \(id) waits as job \(job) for `camlib worker` (`camlib jobs cancel \(job)` drops it)")
            _exit(ExitStatus.interrupted)
        }
        defer { withExtendedLifetime(signals) {} }
        let movie = MovieBar()
        try worker.run(progress: { _, text in
            struct Step: Decodable {
                var phase: String?
                var framesDone: Int?
                var framesExpected: Int?
            }
            guard let step = try? JSONDecoder().decode(Step.self, from: Data(text.utf8)) else { return }
            if step.phase == "movie", let done = step.framesDone, let expected = step.framesExpected {
                // Started at the first frame, so the rate counts the movie only.
                if movie.bar == nil { movie.bar = ProgressBar(unit: "frames") }
                movie.bar?.update(done: done, total: max(expected, done), item: "movie")
            } else if step.phase == "still", Terminal.stderrIsTerminal {
                FileHandle.standardError.write(Data("\r\u{1B}[Krendering the still…".utf8))
            }
        })
        guard let outcome = try library.job(job) else { throw LibraryError.assetNotFound("with id \(id)") }
        return (job, outcome)
    }

    /// `--queue`: the render as a job, one waiting per asset (a newer recipe replaces a
    /// waiting one's).
    func runQueued() throws {
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(assets[0])
        let extending = !addFilter.isEmpty || fromApple
        let steps = extending ? addFilter : filter
        let job = try library.enqueue([
            NewJob(kind: .render, asset: id, arguments: RenderJobArguments(steps: steps, extending: extending).json, dedupeKey: "render:\(id)")
        ])[0]
        if output.json {
            print(try Terminal.json(Queued(asset: id, job: job, recipe: Recipe(steps: steps, attachments: []))))
        } else {
            print("Asset \(id): \(steps.map(\.description).joined(separator: " → ")) queued as job \(job); `camlib worker` renders it (`camlib jobs`).")
        }
    }

    struct Queued: Encodable {
        var asset: Int64
        var job: Int64
        var recipe: Recipe
    }

    /// Touched by the worker's thread only.
    final class MovieBar: @unchecked Sendable { var bar: ProgressBar? }
}

extension EditCommand: JSONDescribed {
    static let jsonFields =
        "{asset, adjustmentId, recipe: {steps: [{name, parameters}], attachments: [type]}, renders, warnings}; with --queue, {asset, job, recipe}; for a batch, {batch, recipe, dryRun, assets: [{asset, name, job, state, error, warnings}]}"
}
