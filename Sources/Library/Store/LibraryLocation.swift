import Foundation

/// Where the library lives: `--library PATH`, else `$CAMLIB_LIBRARY`, else
/// `$XDG_DATA_HOME/camlib`, else `~/.local/share/camlib` (the XDG base-directory default).
public enum LibraryLocation {
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit, !explicit.isEmpty { return absolute(explicit) }
        if let fromEnv = environment["CAMLIB_LIBRARY"], !fromEnv.isEmpty { return absolute(fromEnv) }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("camlib")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/camlib")
    }

    public static func absolute(_ path: String) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        return URL(fileURLWithPath: expanded, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            .standardizedFileURL
    }
}
