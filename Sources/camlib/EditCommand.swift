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

            Filters (name:key=value,... to set parameters):
            \(FilterCatalog.all.map { f in
                "  \(f.name): \(f.summary)" + (f.parameters.isEmpty ? "" : "\n" + f.parameters.map { "      \($0.name)=\(Self.number($0.defaultValue)) (\(Self.number($0.range.lowerBound))-\(Self.number($0.range.upperBound))): \($0.help)" }.joined(separator: "\n"))
            }.joined(separator: "\n"))

            Examples:
              camlib edit 12 --filter comic
              camlib edit 12 --filter noir --filter vignette:strength=0.4
              camlib edit 12 --add-filter vignette      (extends the current edit)
              camlib edit 12 --filter comic --queue     (a job for `camlib worker`)

            HEIC stays HEIC (orientation, Exif, colour profile, auxiliary images and
            gain map kept); AVIF stays AVIF; JPEG stays JPEG (with its MPF images and a new
            Exif thumbnail); PNG stays PNG (with its transparency). A render takes no more
            bytes than its original: the encoder's quality is fitted to the original's
            size. A Live Photo's movie is rendered too, every frame, keeping its sound and
            timing, and the rendered pair gets a content identifier of its own; a Motion
            Photo's movie too, put back inside the still. A video's every frame is
            rendered, streamed to disk, keeping its sound, timing, orientation and keys.
            """))

    static func number(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    @OptionGroup var libraryOptions: LibraryOptions

    @Argument(help: ArgumentHelp("An asset id or a path of one of its files.", valueName: "asset"))
    var asset: String

    // Parsed once, as ArgumentParser reads them: a wrong one is a usage error saying why.
    @Option(
        name: .long, help: ArgumentHelp("A filter, applied in order from the original; repeatable.", valueName: "name[:key=value,...]"),
        transform: FilterStep.init(parsing:))
    var filter: [FilterStep] = []

    @Option(
        name: .customLong("add-filter"), help: ArgumentHelp("A filter appended to the current edit's recipe; repeatable.", valueName: "name[:key=value,...]"),
        transform: FilterStep.init(parsing:))
    var addFilter: [FilterStep] = []

    @Flag(help: "Record the edit as a render job and return at once; camlib worker or camlib serve renders it.")
    var queue = false

    @OptionGroup var output: JSONOutput<EditCommand>

    /// For `camlib serve`, which runs each edit in a child camlib so that a file that
    /// crashes or exhausts a decoder costs that edit only: progress as JSON lines on
    /// standard error, and the child ends with its parent.
    @Flag(name: .customLong("progress-lines"), help: .private)
    var progressLines = false

    func validate() throws {
        if filter.isEmpty && addFilter.isEmpty { throw ValidationError("give --filter NAME (or --add-filter NAME to extend the current edit)") }
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
        if queue { return try runQueued() }
        // The gallery runs this command as its child already; on the command line the
        // edit runs in a child of its own, so a file that crashes a decoder ends with a
        // clear error naming it.
        if progressLines { ChildProcess.exitWithParent() } else { try Isolation.runInChild(describing: Int64(asset) != nil ? "asset \(asset)" : asset, cpuSeconds: Self.cpuSeconds) }
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        let extending = !addFilter.isEmpty
        let steps = extending ? addFilter : filter
        let result: EditResult
        do {
            result = try edit(library, id, steps, extending)
        } catch let error as EditError {
            if Terminal.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Terminal.error("camlib: \(error)")
            throw ExitCode.failure
        }
        if Terminal.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let recipe = result.recipe.steps.map(\.description).joined(separator: " → ")
        if output.json {
            let data = Recipe(steps: result.recipe.steps, attachments: result.recipe.attachments.map(\.type.rawValue))
            print(try Terminal.json(Output(asset: id, adjustmentId: result.adjustmentID, recipe: data, renders: result.renders, warnings: result.warnings)))
        } else {
            print("Asset \(id): \(recipe)")
            for r in result.renders { print("  rendered \(r)") }
        }
        for w in result.warnings { Terminal.error("camlib: asset \(id): \(w)") }
    }

    /// `--queue`: the render as a job, one waiting per asset (a newer recipe replaces a
    /// waiting one's).
    func runQueued() throws {
        let library = try libraryOptions.open(.write)
        let id = try library.findAsset(asset)
        let extending = !addFilter.isEmpty
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

    /// Touched by the movie's thread only.
    final class MovieBar { var bar: ProgressBar? }

    /// The edit, with its progress on a terminal (a Live Photo edit takes seconds): the
    /// still, then the movie's frames as they render.
    func edit(_ library: PhotoLibrary, _ id: Int64, _ steps: [FilterStep], _ extending: Bool) throws -> EditResult {
        let movie = MovieBar()
        return try library.edit(asset: id, steps: steps, extending: extending) { [progressLines] step in
            if progressLines {
                let line: String
                switch step {
                case .still: line = #"{"phase":"still"}"#
                case .movieFrames(let done, let expected): line = #"{"phase":"movie","framesDone":\#(done),"framesExpected":\#(expected)}"#
                }
                FileHandle.standardError.write(Data((line + "\n").utf8))
                return
            }
            switch step {
            case .still:
                if Terminal.stderrIsTerminal { FileHandle.standardError.write(Data("\r\u{1B}[Krendering the still…".utf8)) }
            case .movieFrames(let done, let expected):
                // Started at the first frame, so the rate counts the movie only.
                if movie.bar == nil { movie.bar = ProgressBar(unit: "frames") }
                movie.bar?.update(done: done, total: max(expected, done), item: "movie")
            }
        }
    }
}

extension EditCommand: JSONDescribed {
    static let jsonFields =
        "{asset, adjustmentId, recipe: {steps: [{name, parameters}], attachments: [type]}, renders, warnings}; with --queue, {asset, job, recipe}"
}
