import Foundation

#if canImport(FoundationXML)
    import FoundationXML  // XMLParser lives here on Linux (libxml2 underneath)
#endif

/// An XMP packet (RDF/XML) reduced to what camlib reads from it: the simple properties of
/// its `rdf:Description`s, whether written as attributes (`GDepth:Near="12.4"`) or as
/// elements (`<GDepth:Near>12.4</GDepth:Near>`), and the items of ordered arrays such as
/// Google's `Container:Directory`.
///
/// Properties are keyed by namespace URI and local name, never by prefix: writers pick
/// their own prefixes.
/// ```swift
/// let xmp = try XMPPacket(parsing: segment.payload.dropFirst(29))
/// xmp.value(XMPNamespace.gDepth, "Format")   // "RangeInverse"
/// ```
public struct XMPPacket: Sendable {
    /// One XML element: its qualified name, attributes (by namespace and local name),
    /// children and text.
    public struct Element: Sendable {
        public var namespace: String
        public var name: String
        public var attributes: [QualifiedName: String]
        public var children: [Element]
        public var text: String
    }

    public struct QualifiedName: Hashable, Sendable {
        public var namespace: String
        public var name: String
        public init(_ namespace: String, _ name: String) {
            self.namespace = namespace
            self.name = name
        }
    }

    public let root: Element
    /// Simple properties of every `rdf:Description`, in document order (the first wins).
    public private(set) var properties: [QualifiedName: String] = [:]

    /// Parses an XMP packet; surrounding `<?xpacket?>` processing instructions and
    /// trailing padding are fine. External entities are never fetched.
    public init(parsing bytes: some Collection<UInt8>) throws {
        var data = Data(bytes)
        // Writers pad packets with spaces and sometimes NULs, which XML forbids.
        while let last = data.last, last == 0 { data.removeLast() }
        // XMP is UTF-8. Checked first: Foundation's XMLParser (on Linux) stops the whole
        // process, with no error to catch, when an element or attribute name is not valid
        // UTF-8 (swift-corelibs-foundation #5534); only a well-formed packet reaches it.
        guard String(validating: data, as: UTF8.self) != nil else {
            throw FormatError("XMP", "not valid UTF-8 text; camlib reads XMP written in UTF-8 only")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.externalEntityResolvingPolicy = .never
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no root element"
            throw FormatError("XMP", "not well-formed XML (line \(parser.lineNumber)): \(reason)")
        }
        self.root = root
        collect(root)
    }

    /// Merges another packet's properties (JPEG Extended XMP continues the main packet).
    public mutating func merge(_ other: XMPPacket) {
        properties.merge(other.properties) { mine, _ in mine }
        extraRoots.append(other.root)
    }

    private var extraRoots: [Element] = []

    public func value(_ namespace: String, _ name: String) -> String? {
        properties[QualifiedName(namespace, name)]
    }

    /// Every simple property in `namespace`, by local name.
    public func properties(in namespace: String) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in properties where key.namespace == namespace { out[key.name] = value }
        return out
    }

    /// The items of an ordered or unordered array property (`rdf:Seq`/`rdf:Bag`/`rdf:Alt`):
    /// for each `rdf:li`, the simple properties found on it or on its single child
    /// resource (Google's `<Container:Item Item:Mime=… Item:Length=…/>`).
    public func arrayItems(_ namespace: String, _ name: String) -> [[QualifiedName: String]] {
        for root in [root] + extraRoots {
            if let property = Self.find(root, QualifiedName(namespace, name)) {
                let list = property.children.first { [XMPNamespace.rdf].contains($0.namespace) && ["Seq", "Bag", "Alt"].contains($0.name) }
                return (list?.children ?? []).filter { $0.namespace == XMPNamespace.rdf && $0.name == "li" }.map(Self.fields)
            }
        }
        return []
    }

    // MARK: Reading the tree

    private mutating func collect(_ element: Element) {
        if element.namespace == XMPNamespace.rdf && element.name == "Description" {
            for (key, value) in element.attributes where key.namespace != XMPNamespace.rdf && key.namespace != "" {
                if properties[key] == nil { properties[key] = value }
            }
            for child in element.children where child.children.isEmpty {
                let key = QualifiedName(child.namespace, child.name)
                if properties[key] == nil { properties[key] = child.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
        }
        for child in element.children { collect(child) }
    }

    private static func find(_ element: Element, _ name: QualifiedName) -> Element? {
        if element.namespace == name.namespace && element.name == name.name { return element }
        for child in element.children {
            if let hit = find(child, name) { return hit }
        }
        return nil
    }

    /// Simple fields of an `rdf:li`: its own attributes and simple children, then those of
    /// the resource it holds (one level down), including `rdf:Description` wrappers.
    private static func fields(_ li: Element) -> [QualifiedName: String] {
        var out: [QualifiedName: String] = [:]
        func take(_ e: Element, depth: Int) {
            for (k, v) in e.attributes where k.namespace != XMPNamespace.rdf { out[k] = out[k] ?? v }
            for c in e.children {
                if c.children.isEmpty, !c.text.isEmpty || c.attributes.isEmpty {
                    let key = QualifiedName(c.namespace, c.name)
                    out[key] = out[key] ?? c.text.trimmingCharacters(in: .whitespacesAndNewlines)
                } else if depth < 3 {
                    take(c, depth: depth + 1)
                }
            }
        }
        take(li, depth: 0)
        return out
    }
}

/// Namespace URIs of the XMP schemas camlib reads.
public enum XMPNamespace {
    public static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    public static let xmpNote = "http://ns.adobe.com/xmp/note/"
    /// Apple pixel data info: what an MPF image or HEIF aux item holds.
    public static let apdi = "http://ns.apple.com/pixeldatainfo/1.0/"
    /// camlib's own notes on what it captured (e.g. `DerivedFrom` on a matte made from depth).
    public static let camlibCapture = "http://ns.camlib.org/capture/1.0/"
    public static let appleDepthData = "http://ns.apple.com/depthData/1.0/"
    public static let appleHDRGainMap = "http://ns.apple.com/HDRGainMap/1.0/"
    /// Google depth map (Lens Blur).
    public static let gDepth = "http://ns.google.com/photos/1.0/depthmap/"
    public static let gImage = "http://ns.google.com/photos/1.0/image/"
    public static let gCamera = "http://ns.google.com/photos/1.0/camera/"
    /// Google container (Motion Photo, Ultra HDR, Dynamic Depth).
    public static let container = "http://ns.google.com/photos/1.0/container/"
    public static let containerItem = "http://ns.google.com/photos/1.0/container/item/"
    /// Adobe / Ultra HDR gain map parameters.
    public static let hdrGainMap = "http://ns.adobe.com/hdr-gain-map/1.0/"
}

/// SAX events → a small element tree, resolving prefixes to namespace URIs.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: XMPPacket.Element?
    private var stack: [XMPPacket.Element] = []
    private var prefixes: [String: [String]] = [:]

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        prefixes[prefix, default: []].append(namespaceURI)
    }

    func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
        _ = prefixes[prefix]?.popLast()
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        var attributes: [XMPPacket.QualifiedName: String] = [:]
        for (name, value) in attributeDict {
            attributes[resolve(name)] = value
        }
        let qualified = resolve(qName ?? elementName)
        let element = XMPPacket.Element(
            namespace: namespaceURI ?? qualified.namespace, name: qualified.name.isEmpty ? elementName : qualified.name,
            attributes: attributes, children: [], text: "")
        stack.append(element)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let done = stack.popLast() else { return }
        if stack.isEmpty {
            root = done
        } else {
            stack[stack.count - 1].children.append(done)
        }
    }

    /// "GDepth:Near" → (its namespace URI, "Near"); an unprefixed attribute has no namespace.
    private func resolve(_ name: String) -> XMPPacket.QualifiedName {
        guard let colon = name.firstIndex(of: ":") else { return .init("", name) }
        let prefix = String(name[..<colon])
        let local = String(name[name.index(after: colon)...])
        if prefix == "xmlns" { return .init("xmlns", local) }
        return .init(prefixes[prefix]?.last ?? prefix, local)
    }
}
