import Crypto
import Containers
import Foundation

/// `camlib export`: assets out of the library as files other tools understand and that
/// `camlib import` turns back into the same asset.
///
/// Per asset, under one stem:
/// - the original(s), byte for byte: the still, and a Live Photo's movie renamed to the
///   still's stem (its content identifier already matches); a video's movie;
/// - unless `originalOnly`, when the current version is an edit: its render as
///   `STEM_E.ext`-style Apple name (`IMG_E1234.HEIC`, or `<stem>_E.heic` for other names)
///   and `<stem>.camlib.json`, the adjustment history, which import reads back;
/// - Apple's sidecars: the camera's `IMG_O1234.AAE` always (it belongs with the original);
///   Apple's edit `IMG_1234.AAE` as a file only where it cannot claim a render it does not
///   describe (Apple's edit is current, or no camlib edit is exported); under a camlib edit
///   it travels inside the history instead, and import restores it from there.
public enum Exporter {
    public struct Exported: Codable, Sendable {
        public var asset: Int64
        public var files: [String]
        public var problem: String?

        public init(asset: Int64, files: [String], problem: String? = nil) {
            (self.asset, self.files, self.problem) = (asset, files, problem)
        }
    }

    /// The sidecar that carries camlib's adjustment history.
    public struct HistorySidecar: Codable, Sendable, Equatable {
        public static let suffix = ".camlib.json"
        public var format = "org.camlib.history"
        public var version = 1
        /// sha256 of the original the history applies to: the still, or a video's movie.
        public var original: String
        public var adjustments: [AssetDescription.Adjustment]
        /// sha256 of each render of the current edit exported beside the history
        /// (`IMG_E1234.*`): import links exactly these to it, whatever else claims them.
        /// Absent in histories written before it was recorded.
        public var renders: [String]?
        /// Apple's edit sidecars that would, as files beside camlib's render, claim to
        /// describe it (by Apple's naming `IMG_1234.AAE` describes `IMG_E1234.*`).
        public var appleSidecars: [EmbeddedSidecar]?
        /// True when the original was the current version (a reverted edit): import makes
        /// it current again. Absent in histories written before it was recorded.
        public var originalIsCurrent: Bool?

        public init(
            original: String, adjustments: [AssetDescription.Adjustment], renders: [String]? = nil, appleSidecars: [EmbeddedSidecar]? = nil,
            originalIsCurrent: Bool? = nil
        ) {
            (self.original, self.adjustments, self.renders, self.appleSidecars) = (original, adjustments, renders, appleSidecars)
            self.originalIsCurrent = originalIsCurrent
        }
    }

    /// A sidecar's bytes carried inside the history, under the name it had.
    public struct EmbeddedSidecar: Codable, Sendable, Equatable {
        public var name: String
        public var sha256: String
        /// Base64.
        public var data: String
    }

    /// The name of a render next to an original named `stem`: Apple's `IMG_E1234` for
    /// `IMG_1234`, `stem_E` otherwise.
    public static func renderStem(for stem: String) -> String { variant(of: stem, letter: "E") }

    /// Apple's names beside `IMG_1234`: `IMG_E1234` (a render), `IMG_O1234` (the camera's
    /// adjustments); `stem_E`, `stem_O` for other names.
    static func variant(of stem: String, letter: Character) -> String {
        if let underscore = stem.lastIndex(of: "_") {
            let digits = stem[stem.index(after: underscore)...]
            if !digits.isEmpty, digits.allSatisfy(\.isNumber) { return String(stem[...underscore]) + String(letter) + digits }
        }
        return stem + "_" + String(letter)
    }

    /// Where and under what names `export` writes: `--folder` and `--filename` templates.
    public struct Naming: Sendable {
        public var folder: ExportTemplate?
        public var filename: ExportTemplate?
        public init(folder: ExportTemplate? = nil, filename: ExportTemplate? = nil) { (self.folder, self.filename) = (folder, filename) }
    }

    /// Writes the asset's files into `folder` and returns them (those there already
    /// included). With `dryRun`, writes nothing and returns the files it would write.
    /// Files written get the asset's capture time as their modification time, as
    /// osxphotos does, so a folder sorts by when the photos were taken.
    /// `manifest`: what earlier exports to this folder wrote (read, and brought up to date
    /// with what this one writes); `update`: replace what an earlier export wrote for the
    /// asset and nobody changed since, when the asset's files changed (an edit's render).
    public static func export(
        _ asset: AssetDescription, from library: PhotoLibrary, to base: URL, originalOnly: Bool, naming: Naming = Naming(),
        manifest: ExportManifest? = nil, update: Bool = false, dryRun: Bool = false
    ) throws -> [String] {
        guard let primary = asset.primaryOriginal else { throw LibraryError.assetNotFound("\(asset.id) with an original") }
        let originalStem = URL(fileURLWithPath: primary.originalName ?? primary.path).deletingPathExtension().lastPathComponent
        let stem = naming.filename.map { ExportTemplate.safe($0.render(asset, name: originalStem)) } ?? originalStem
        var folder = base
        if let template = naming.folder {
            for part in template.render(asset, name: originalStem).split(separator: "/") where part != "." && part != ".." {
                folder.appendPathComponent(String(part))
            }
            if !dryRun { try FileAccessError.makeFolder(folder, for: "the export's --folder template") }
        }
        /// A sidecar's name: its own, or under a --filename template the new stem's
        /// (IMG_O1234.aae beside IMG_1234 keeps its O).
        func sidecarName(_ r: AssetDescription.Resource) -> String {
            let own = URL(fileURLWithPath: r.originalName ?? r.path)
            guard naming.filename != nil else { return own.lastPathComponent }
            let ownStem = own.deletingPathExtension().lastPathComponent
            let newStem = ownStem == originalStem ? stem : ownStem == variant(of: originalStem, letter: "O") ? variant(of: stem, letter: "O") : ownStem
            return newStem + (own.pathExtension.isEmpty ? "" : "." + own.pathExtension)
        }
        // Originals, the Live Photo movie under the still's stem.
        var plan: [(source: AssetDescription.Resource, name: String)] = []
        func ext(_ r: AssetDescription.Resource) -> String { URL(fileURLWithPath: r.originalName ?? r.path).pathExtension }
        for r in asset.resources where r.role == .photo || r.role == .video || (r.role == .pairedVideo && asset.kind == .live) {
            plan.append((r, "\(stem).\(ext(r))"))
        }
        let camlibCurrent = asset.adjustments.contains { $0.current && $0.formatIdentifier == CamlibAdjustment.formatIdentifier }
        let hasCamlibHistory = asset.adjustments.contains { $0.formatIdentifier == CamlibAdjustment.formatIdentifier }
        let renders = originalOnly || !asset.adjustments.contains(where: \.current)
            ? [] : asset.resources.filter { $0.role == .renderedPhoto || $0.role == .renderedVideo }
        // The current edit's render (none when the original is current).
        for r in renders { plan.append((r, "\(renderStem(for: stem)).\(URL(fileURLWithPath: r.path).pathExtension)")) }
        // Apple's sidecars: the camera's (IMG_O1234.AAE) with the original, always; Apple's
        // edit (IMG_1234.AAE) as a file unless camlib's history is exported and Apple's edit
        // is not current: beside camlib's IMG_E1234 it would claim to describe that render.
        var embedded: [EmbeddedSidecar] = []
        for r in asset.resources where r.role == .adjustmentSidecar {
            let ownStem = URL(fileURLWithPath: r.originalName ?? r.path).deletingPathExtension().lastPathComponent
            let isCameraAdjustment = AppleSidecarName.adjustmentTarget(stem: ownStem) != ownStem
            if isCameraAdjustment {
                plan.append((r, sidecarName(r)))  // its own name, as a name only: never a path out of the folder
            } else if !originalOnly {
                if hasCamlibHistory && (camlibCurrent || !asset.adjustments.contains(where: \.current)) {
                    let bytes = try Data(contentsOf: URL(fileURLWithPath: r.path))
                    guard SHA256.hash(data: bytes).hexString == r.sha256 else {
                        throw LibraryError.damaged(asset: asset.id, path: r.path, detail: "its bytes are not the ones recorded, so it is not exported")
                    }
                    embedded.append(EmbeddedSidecar(name: URL(fileURLWithPath: r.originalName ?? r.path).lastPathComponent, sha256: r.sha256, data: bytes.base64EncodedString()))
                } else {
                    plan.append((r, sidecarName(r)))
                }
            }
        }
        var history: [UInt8]?
        if !originalOnly, hasCamlibHistory {
            let adjustments = asset.adjustments.filter { $0.formatIdentifier == CamlibAdjustment.formatIdentifier }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let sidecar = HistorySidecar(
                original: primary.sha256, adjustments: adjustments, renders: camlibCurrent ? renders.map(\.sha256) : nil,
                appleSidecars: embedded.isEmpty ? nil : embedded, originalIsCurrent: !asset.adjustments.contains(where: \.current))
            history = [UInt8](try encoder.encode(sidecar))
        }
        // Everything to write: the files, then the history, each with the bytes it must hold.
        var items: [Item] = plan.map { Item(content: .file($0.source), name: $0.name, sha256: $0.source.sha256, bytes: $0.source.bytes) }
        if let history {
            items.append(Item(content: .bytes(history), name: "\(stem)\(HistorySidecar.suffix)", sha256: SHA256.hash(data: history).hexString, bytes: Int64(history.count)))
        }
        // One stem for every file: the first of stem, stem-2, … whose names are free or
        // hold these very bytes already (an earlier export of the asset, whole or cut
        // short): that is completed, never copied again as -2, and nothing is overwritten.
        // With `update`, a name holding what an earlier export wrote for this asset, and
        // unchanged since (the manifest says so), is replaced: a changed edit's render.
        let fm = FileManager.default
        func size(_ url: URL) -> Int64? { (try? fm.attributesOfItem(atPath: url.path))?[.size] as? Int64 }
        var suffix = ""
        var present: Set<String> = []
        var outdated: Set<String> = []
        for n in 1...10_000 {
            suffix = n == 1 ? "" : "-\(n)"
            (present, outdated) = ([], [])
            var usable = true
            for item in items {
                let url = folder.appendingPathComponent(rename(item.name, stem: stem, suffix: suffix))
                guard let onDisk = size(url) else { continue }
                let recorded = manifest?.files[manifest!.key(url)]
                if let recorded, recorded.sha256 == item.sha256, recorded.bytes == onDisk, onDisk == item.bytes {
                    present.insert(url.path)  // written by an earlier export, as recorded: not read again
                } else if onDisk == item.bytes, (try? FileReading.sha256(of: url.path)) == item.sha256 {
                    present.insert(url.path)
                } else if update, let recorded, recorded.asset == asset.id, recorded.bytes == onDisk,
                    (try? FileReading.sha256(of: url.path)) == recorded.sha256
                {
                    outdated.insert(url.path)
                } else {
                    usable = false
                    break
                }
            }
            if usable { break }
        }
        let destinations = items.map { folder.appendingPathComponent(rename($0.name, stem: stem, suffix: suffix)) }
        if dryRun { return destinations.map(\.path).filter { !present.contains($0) } }
        var written: [String] = []
        let taken = fileTime(asset.capturedAt)
        defer { if let taken { for path in written { try? fm.setAttributes([.modificationDate: taken], ofItemAtPath: path) } } }
        do {
            for (item, destination) in zip(items, destinations) where !present.contains(destination.path) {
                let replace = outdated.contains(destination.path)
                switch item.content {
                case .file(let source): try copy(source, of: asset.id, to: destination, replacing: replace)
                case .bytes(let bytes): try AtomicFile.write(bytes, to: destination, overwrite: replace)
                }
                written.append(destination.path)
                manifest?.files[manifest!.key(destination)] = .init(asset: asset.id, sha256: item.sha256, bytes: item.bytes)
            }
        } catch {
            // An asset is exported whole or not at all: what this run wrote goes (a file it
            // replaced was outdated already).
            for path in written {
                unlink(path)
                if let manifest { manifest.files[manifest.key(URL(fileURLWithPath: path))] = nil }
            }
            throw error
        }
        for (item, destination) in zip(items, destinations) where present.contains(destination.path) {
            manifest?.files[manifest!.key(destination)] = .init(asset: asset.id, sha256: item.sha256, bytes: item.bytes)
        }
        return destinations.map(\.path)
    }

    /// A file to write and the bytes it must hold.
    private struct Item {
        enum Content {
            case file(AssetDescription.Resource)
            case bytes([UInt8])
        }
        var content: Content
        var name: String
        var sha256: String
        var bytes: Int64
    }

    /// When the asset was taken, as a moment: a time without a UTC offset is read in this
    /// machine's time zone, as the camera's clock showed it.
    static func fileTime(_ capturedAt: String?) -> Date? {
        guard let text = capturedAt, let time = CaptureTime(iso8601: text) else { return nil }
        var seconds = time.secondsSinceEpoch
        if time.utcOffsetMinutes == nil { seconds -= Double(TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Temporary files an export killed half-way left in `folder` (`HOST-PID-UUID.part`, the
    /// process gone): deleted before exporting there again.
    public static func removeAbandonedTemporaries(in folder: URL) {
        AtomicFile.removeAbandonedTemporaries(in: folder)
    }

    /// `IMG_1234.HEIC` with suffix "-2" → `IMG_1234-2.HEIC`; render names keep their E.
    static func rename(_ name: String, stem: String, suffix: String) -> String {
        guard !suffix.isEmpty else { return name }
        // The history's two-part extension stays whole: NAME-2.camlib.json.
        if name.hasSuffix(HistorySidecar.suffix) { return String(name.dropLast(HistorySidecar.suffix.count)) + suffix + HistorySidecar.suffix }
        let url = URL(fileURLWithPath: name)
        let base = url.deletingPathExtension().lastPathComponent
        let ext = url.pathExtension
        return base + suffix + (ext.isEmpty ? "" : ".\(ext)")
    }

    /// A byte-for-byte copy through a temporary file beside the destination, never
    /// replacing an existing file, and only of the bytes the catalog recorded: a file
    /// changed or damaged in the library is refused, not handed on.
    static func copy(_ source: AssetDescription.Resource, of asset: Int64, to destination: URL, replacing: Bool = false) throws {
        let temporary = try AtomicFile.copyToTemporary(from: URL(fileURLWithPath: source.path), in: destination.deletingLastPathComponent(), readOnly: false)
        defer { unlink(temporary.url.path) }
        guard temporary.bytes == source.bytes, temporary.sha256 == source.sha256 else {
            throw LibraryError.damaged(
                asset: asset, path: source.path,
                detail: "its bytes are not the ones recorded (\(temporary.bytes) bytes, sha256 \(temporary.sha256.prefix(12))…; recorded \(source.bytes) bytes, \(source.sha256.prefix(12))…), so it is not exported")
        }
        if replacing {
            guard Glibc.rename(temporary.url.path, destination.path) == 0 else {
                throw LibraryError.io(path: destination.path, operation: "rename", errno: errno)
            }
            try AtomicFile.syncDirectory(destination.deletingLastPathComponent())
            return
        }
        guard link(temporary.url.path, destination.path) == 0 else {
            if errno == EEXIST { throw LibraryError.exists(path: destination.path) }
            throw LibraryError.io(path: destination.path, operation: "link", errno: errno)
        }
        try AtomicFile.syncDirectory(destination.deletingLastPathComponent())
    }
}
