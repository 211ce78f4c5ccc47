import Foundation
import Testing
import TestSupport

/// `man camlib` and the shell completions, as the setup script installs them (root:
/// /usr/local/share, otherwise ~/.local/share): present, and what camlib's help says now.
struct ManualTests {
    static let shares = ["/usr/local/share", (ProcessInfo.processInfo.environment["XDG_DATA_HOME"] ?? NSHomeDirectory() + "/.local/share")]

    static func installed(_ relative: String) -> String? {
        shares.map { $0 + "/" + relative }.first { FileManager.default.fileExists(atPath: $0) }
    }

    @Test func theManualIsInstalledAndSaysWhatCamlibSays() throws {
        let manual = try #require(Self.installed("man/man1/camlib.1"), "setup.sh installs man camlib")
        // Made again from the camlib under test by the same tool: the same page, but its date.
        let generator = URL(fileURLWithPath: Camlib.path).deletingLastPathComponent().appendingPathComponent("generate-manual").path
        let scratch = try ScratchDirectory()
        let made = try run(generator, [Camlib.path, "--output-directory", scratch.url.path])
        #expect(made.status == 0, "\(made.stderr)")
        let undated = { (path: String) in
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix(".Dd ") }
        }
        #expect(try undated(manual) == undated(scratch.file("camlib.1")), "\(manual) is not camlib's help as it is now: run ./setup.sh")
        let page = try String(contentsOfFile: manual, encoding: .utf8)
        for command in ["capture", "import", "query", "show", "aux", "edit", "revert", "export", "trash", "restore", "verify", "repair", "album", "keyword", "serve"] {
            #expect(page.contains(".It Em \(command)") || page.contains("\(command)\n"), "the manual has no \(command)")
        }
        // man itself finds and formats it, where man is installed.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/man") {
            let shown = try run("/usr/bin/man", ["-l", manual], environment: ["MANWIDTH": "100", "MANPAGER": "cat", "PAGER": "cat"])
            #expect(shown.status == 0 && shown.stdout.contains("camlib"), "\(shown.stderr)")
        }
    }

    @Test func completionsAreInstalledForBashZshAndFish() throws {
        for (file, mark) in [("bash-completion/completions/camlib", "_camlib"), ("zsh/site-functions/_camlib", "#compdef camlib"), ("fish/vendor_completions.d/camlib.fish", "complete -c 'camlib'")] {
            let path = try #require(Self.installed(file), "setup.sh installs \(file)")
            let script = try String(contentsOfFile: path, encoding: .utf8)
            #expect(script.contains(mark) && script.contains("capture") && script.contains("library"), "\(path)")
        }
    }
}
