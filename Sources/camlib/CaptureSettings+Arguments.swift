import ArgumentParser
import Capture
import Codecs

// Capture's choices read once, by ArgumentParser, as the values they name (any case):
// a wrong one is refused with the list of right ones before anything starts.

extension PhotoSettings.FileFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension PhotoSettings.QualityPrioritization: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension MovieWriter.Codec: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
