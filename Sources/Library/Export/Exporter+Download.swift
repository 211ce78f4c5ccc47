import Foundation

extension Exporter {
    /// What a download holds of each asset.
    public enum DownloadVersion: String, Sendable, CaseIterable {
        /// The originals as they were imported, a Live Photo's movie under its still's
        /// name, and Apple's sidecars.
        case original
        /// What the library shows: an edited asset's renders (`IMG_E1234.*`), else its originals.
        case current
    }

    /// A file of a download, under the name it has there.
    public struct DownloadFile: Sendable, Equatable {
        public var name: String
        public var path: String
        public var bytes: Int64
        public var asset: Int64
        public var modified: Date?
        /// Its CRC-32 as the catalog records it, for a ZIP's header; nil when not recorded.
        public var crc32: UInt32?
    }

    /// The files a download of `assets` holds, named as `camlib export` names them (a
    /// Live Photo's movie beside its still under one stem, a render as `IMG_E1234`), a
    /// second asset of the same name as `IMG_1234-2.*`. Assets without an original are
    /// left out.
    public static func downloadFiles(_ assets: [AssetDescription], version: DownloadVersion) -> [DownloadFile] {
        var taken = Set<String>()
        var files: [DownloadFile] = []
        for asset in assets {
            guard let primary = asset.primaryOriginal else { continue }
            let stem = URL(fileURLWithPath: primary.originalName ?? primary.path).deletingPathExtension().lastPathComponent
            func ext(_ r: AssetDescription.Resource) -> String {
                let own = URL(fileURLWithPath: r.originalName ?? r.path).pathExtension
                return own.isEmpty ? URL(fileURLWithPath: r.path).pathExtension : own
            }
            let originals = asset.resources.filter { $0.role == .photo || $0.role == .video || ($0.role == .pairedVideo && asset.kind == .live) }
            var plan: [(AssetDescription.Resource, String)] = []
            let renders = asset.adjustments.contains(where: \.current)
                ? asset.resources.filter { $0.role == .renderedPhoto || $0.role == .renderedVideo } : []
            if version == .current && !renders.isEmpty {
                for r in renders { plan.append((r, "\(renderStem(for: stem)).\(URL(fileURLWithPath: r.path).pathExtension)")) }
                // A half the edit has no render of (a still's edit of a Live Photo) is shown as it was.
                let still = renders.contains { $0.role == .renderedPhoto }, movie = renders.contains { $0.role == .renderedVideo }
                for r in originals where r.role == .photo ? !still : !movie { plan.append((r, "\(stem).\(ext(r))")) }
            } else {
                for r in originals { plan.append((r, "\(stem).\(ext(r))")) }
                if version == .original {
                    for r in asset.resources where r.role == .adjustmentSidecar {
                        plan.append((r, URL(fileURLWithPath: r.originalName ?? r.path).lastPathComponent))
                    }
                }
            }
            // One suffix for all of the asset's files, so they keep one stem.
            var suffix = ""
            for n in 1...100_000 {
                suffix = n == 1 ? "" : "-\(n)"
                if plan.allSatisfy({ !taken.contains(rename($0.1, stem: stem, suffix: suffix).lowercased()) }) { break }
            }
            let modified = fileTime(asset.capturedAt)
            for (resource, name) in plan {
                let final = rename(name, stem: stem, suffix: suffix)
                taken.insert(final.lowercased())
                files.append(DownloadFile(name: final, path: resource.path, bytes: resource.bytes, asset: asset.id, modified: modified, crc32: resource.crc32))
            }
        }
        return files
    }
}
