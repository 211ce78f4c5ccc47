
/// Every file of the library folder that belongs to some assets: what their catalog rows
/// name (originals, sidecars, thumbnails, renders, Motion Photo movies, auxiliary
/// images' PNGs), and what camlib made of their stills and movies without a row (a
/// browser's preview and H.264 proxy, a render's thumbnail), named by the file's sha256.
struct AssetFiles {
    /// Relative to the library folder, each once.
    var paths: [String] = []
    /// For each file named by a sha256 rather than by a row: that sha256. Such a file
    /// is another asset's too while any file with those bytes remains.
    var shaOfCache: [String: String] = [:]

    static func of(_ assets: [Int64], layout: LibraryLayout, _ db: any CatalogConnection) throws -> AssetFiles {
        var files = AssetFiles()
        var seen: Set<String> = []
        func add(_ path: String, sha: String? = nil) {
            guard seen.insert(path).inserted else { return }
            files.paths.append(path)
            if let sha { files.shaOfCache[path] = sha }
        }
        for start in stride(from: 0, to: assets.count, by: 256) {
            let chunk = IDList(Array(assets[start..<min(start + 256, assets.count)]))
            let resources = try ResourceRecord.fetchAll(assets: chunk, db)
            for r in resources { add(r.path) }
            for x in try AuxImageRecord.fetchAll(assets: chunk, db) { if let path = x.path { add(path) } }
            for r in resources where r.role.isPrimaryOriginal || ResourceRole.renders.contains(r.role) {
                for cache in [layout.preview(of: r.sha256), layout.proxy(of: r.sha256), layout.thumbnail(of: r.sha256)] {
                    add(layout.relative(cache), sha: r.sha256)
                }
            }
        }
        return files
    }
}
